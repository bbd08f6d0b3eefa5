package grafana

import (
	"strings"
	"testing"
)

// FuzzExpand: expanding never panics, and with every variable known the
// result holds no variable reference; an unknown one is an error naming
// it.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		`rate(x{m=~"$model"}[$__rate_interval])`, `${model:regex}`, `$`, `${`, `${}`, `$$model`, `${a:b:c}`, `sum(x)`, `$9x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		out, err := Expand(expr, map[string]string{"model": ".*", "__rate_interval": "1m"})
		if err != nil {
			if !strings.Contains(err.Error(), "no value for $") {
				t.Fatalf("Expand(%q): unexpected error %v", expr, err)
			}
			return
		}
		if variable.MatchString(out) {
			t.Fatalf("Expand(%q) = %q still holds a variable", expr, out)
		}
	})
}
