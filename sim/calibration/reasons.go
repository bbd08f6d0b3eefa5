package calibration

import (
	_ "embed"
	"fmt"
	"strings"
)

// builtinReasons are the reasons given for the published points of the
// repository's calibration data (../shared/sim-calibration).
//
//go:embed reasons.tsv
var builtinReasons string

// Reasons returns the reasons for the figures of the repository's
// calibration data that are expected to be far off, keyed as Check wants
// them.
func Reasons() map[string]string {
	r, err := ParseReasons(builtinReasons, "reasons.tsv")
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	return r
}

// ParseReasons reads a reasons file: lines of id, metric (empty for every
// metric of the point) and reason, tab-separated; # starts a comment line.
// name prefixes errors.
func ParseReasons(text, name string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || f[0] == "" || strings.TrimSpace(f[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want id, metric and reason separated by tabs", name, i+1)
		}
		key := f[0]
		if f[1] != "" {
			known := false
			for _, m := range Metric {
				known = known || f[1] == m
			}
			if !known {
				return nil, fmt.Errorf("%s:%d: metric %q: want one of %s", name, i+1, f[1], strings.Join(Metric, ", "))
			}
			key += " " + f[1]
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s:%d: %q has a reason already", name, i+1, key)
		}
		out[key] = strings.TrimSpace(f[2])
	}
	return out, nil
}
