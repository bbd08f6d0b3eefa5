package kubetest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that notes failures instead of failing.
type recorder struct {
	testing.TB
	msgs []string
}

type stop struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(f, a...))
	panic(stop{})
}

func decodeFails(t *testing.T, stream string) string {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		Decode(r, []byte(stream))
	}()
	return strings.Join(r.msgs, "\n")
}

// Decoding is strict: what the API does not know fails, as do names and
// labels it would refuse.
func TestDecodeIsStrict(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"unknown field", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\nspec:\n  completionsMode: Indexed\n", `unknown field "completionsMode"`},
		{"wrong type", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: [1]\n", "strict decoding"},
		{"unknown kind", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n", "unexpected v1 Pod"},
		{"bad name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: A_B\n", "name:"},
		{"bad label", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    k: a b\n", "label k=a b"},
		{"twice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "ConfigMap/a twice"},
	}
	for _, c := range cases {
		if got := decodeFails(t, c.doc); !strings.Contains(got, c.want) {
			t.Errorf("%s: failures %q, want %q", c.name, got, c.want)
		}
	}
	ok := "# head\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
	if got := decodeFails(t, ok); got != "" {
		t.Errorf("a valid stream failed: %s", got)
	}
}

func TestRefs(t *testing.T) {
	got := Refs([]string{"--start-at=$(A)", "x", "$(B)/$(C_1)", "$$(D)", "$(not valid"})
	if strings.Join(got, ",") != "A,B,C_1" { // $$( is Kubernetes' escape
		t.Errorf("Refs = %v", got)
	}
}

// Expand follows the rule of the API reference of Container.args.
func TestExpand(t *testing.T) {
	env := map[string]string{"NODE_NAME": "node-7", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"$(NODE_NAME)", "node-7"},           // a defined variable
		{"a$(EMPTY)b", "ab"},                 // defined, empty
		{"$(HOME)", "$(HOME)"},               // undefined: kept
		{"$$", "$"},                          // the escape
		{"$$(NODE_NAME)", "$(NODE_NAME)"},    // an escaped reference
		{"$$$(NODE_NAME)", "$node-7"},        // an escape, then a reference
		{"$$$$", "$$"},                       // two escapes
		{"$", "$"},                           // a lone $ at the end
		{"$x $1", "$x $1"},                   // $ before anything else
		{"$(NODE_NAME", "$(NODE_NAME"},       // no closing parenthesis
		{"$(a)$(NODE_NAME))", "$(a)node-7)"}, // to the first ')'
		{`{"stop":["$$","$(NODE_NAME)"]}`, `{"stop":["$","node-7"]}`},
	}
	for _, c := range cases {
		if got := Expand(c.in, lookup); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
