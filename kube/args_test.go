package kube

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/goodput-dev/goodput/internal/kubetest"
)

// lookup stands for a container's environment at run time: each variable
// it defines reads as "<NAME>".
func lookup(c corev1.Container) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, e := range c.Env {
			if e.Name == name {
				return "<" + name + ">", true
			}
		}
		return "", false
	}
}

// expanded returns c's args as Kubernetes hands them to goodput.
func expanded(c corev1.Container) []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = kubetest.Expand(a, lookup(c))
	}
	return out
}

// Every pod runs the arguments the user gave as given, $ and $(…)
// included, but for the $(ENV) of a Secret's variable, which becomes the
// Secret's value; goodput's own references are expanded.
func TestArgsReachGoodputAsGiven(t *testing.T) {
	user := []string{
		`{"stop":["$$","$(NODE_NAME)","$(HOME)","$"]}`, // the container defines NODE_NAME, not HOME
		"$(GOODPUT_RUN)",  // goodput's variable, named by the user: literal
		"price=$5 $$$ $(", // lone $, a run of them, an unclosed reference
		"$$(GW_TOKEN)",    // $, then the Secret's reference
	}
	o := base()
	o.Secrets = []SecretEnv{{"GW_TOKEN", "gateway", "token"}}
	o.Command = append(slices.Clone(o.Command), "--extra-body", user[0], "--record-label", "a="+user[1], "--record-label", "b="+user[2],
		"--header", "X-Gateway-Token=$(GW_TOKEN)", "--header", "X-Other="+user[3])
	o.MergeArgs = []string{"--gate", "p99(ttft)<=500ms", "--slo", "ttft<=$$(NODE_NAME)"}
	o.Sim = &Sim{Args: []string{"--model", "m$$(NODE_NAME)"}}
	got := render(t, o)

	shard := got.Jobs["bench-a"].Spec.Template.Spec.Containers[0]
	want := append(slices.Clone(base().Command), "--extra-body", user[0], "--record-label", "a="+user[1], "--record-label", "b="+user[2],
		"--header", "X-Gateway-Token=<GW_TOKEN>", "--header", "X-Other=$<GW_TOKEN>",
		"--base-url", o.SimURL(), "--shards", "4", "--start-at=<GOODPUT_START_AT>", "--result-dir", "/results/<GOODPUT_RUN>")
	if args := expanded(shard); !slices.Equal(args, want) {
		t.Errorf("the shard pod runs\n%q\nwant\n%q", args, want)
	}
	merge := got.Jobs["bench-a-merge"].Spec.Template.Spec.Containers[0]
	if args := expanded(merge); !slices.Equal(args[len(args)-4:], []string{"--gate", "p99(ttft)<=500ms", "--slo", "ttft<=$$(NODE_NAME)"}) ||
		args[1] != "/results/<GOODPUT_RUN>" {
		t.Errorf("the merge pod runs %q", args)
	}
	sim := got.Deployments["bench-a-sim"].Spec.Template.Spec.Containers[0]
	if args := expanded(sim); !slices.Equal(args[len(args)-2:], []string{"--model", "m$$(NODE_NAME)"}) {
		t.Errorf("the simulator runs %q", args)
	}
}

// literal doubles every $ but in a reference to a name it keeps.
func TestLiteral(t *testing.T) {
	keep := map[string]bool{"TOKEN": true}
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"", ""},
		{"$", "$$"},
		{"$$", "$$$$"},
		{"$(TOKEN)", "$(TOKEN)"},                 // kept: the Secret's reference
		{"Bearer $(TOKEN)!", "Bearer $(TOKEN)!"}, // within text
		{"$$(TOKEN)", "$$$(TOKEN)"},              // a $, then the reference
		{"$(NODE_NAME)", "$$(NODE_NAME)"},        // not a kept name
		{"$(TOKEN", "$$(TOKEN"},                  // no closing parenthesis
		{"$(TOKEN_2)", "$$(TOKEN_2)"},            // another name
		{"a$(TOKEN)$(TOKEN)b", "a$(TOKEN)$(TOKEN)b"},
	}
	for _, c := range cases {
		got := literal(c.in, keep)
		if got != c.want {
			t.Errorf("literal(%q) = %q, want %q", c.in, got, c.want)
		}
		// Expanded as Kubernetes does, it is the input, the reference
		// replaced.
		back := kubetest.Expand(got, func(n string) (string, bool) { return "<" + n + ">", n == "TOKEN" || n == "NODE_NAME" })
		if want := strings.ReplaceAll(c.in, "$(TOKEN)", "<TOKEN>"); back != want {
			t.Errorf("literal(%q) expands to %q, want %q", c.in, back, want)
		}
	}
}
