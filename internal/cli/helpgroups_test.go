package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryLoadFlagHasAHelpGroup fails when a flag is added to bench or
// sweep without a place in flagGroups: its --help would list it under
// Other.
func TestEveryLoadFlagHasAHelpGroup(t *testing.T) {
	root := NewRoot(&Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	for _, c := range root.Commands() {
		if !loadCommands[c.Name()] {
			continue
		}
		c.InitDefaultHelpFlag()
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if _, ok := flagGroups[f.Name]; !ok {
				t.Errorf("%s --%s has no help group: add it to flagGroups", c.Name(), f.Name)
			}
		})
	}
	for name, g := range flagGroups {
		if !strings.Contains(strings.Join(groupOrder, "|"), g) {
			t.Errorf("--%s is in group %q, which --help does not list", name, g)
		}
	}
}

// TestHelpListsFlagsUnderHeadings reads bench's and sweep's --help: every
// flag once, under its heading, the headings in order.
func TestHelpListsFlagsUnderHeadings(t *testing.T) {
	for _, cmd := range []string{"bench", "sweep"} {
		t.Run(cmd, func(t *testing.T) {
			out, errOut, code := run(t, "", cmd, "--help")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			heading := ""
			var headings []string
			seen := map[string]string{}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasSuffix(line, " flags:") {
					heading = strings.TrimSuffix(line, " flags:")
					headings = append(headings, heading)
					continue
				}
				if m := flagLine.FindStringSubmatch(line); m != nil && heading != "" {
					if prev, dup := seen[m[1]]; dup {
						t.Errorf("--%s listed under %s and %s", m[1], prev, heading)
					}
					seen[m[1]] = heading
					if want := flagGroups[m[1]]; want != heading {
						t.Errorf("--%s under %q, want %q", m[1], heading, want)
					}
				}
			}
			var want []string
			for _, g := range groupOrder {
				for _, h := range headings {
					if h == g {
						want = append(want, g)
					}
				}
			}
			if strings.Join(headings, ",") != strings.Join(want, ",") || len(headings) < 6 {
				t.Errorf("headings %v, want them in the order %v", headings, groupOrder)
			}
			// Spot checks of the table itself.
			for flag, g := range map[string]string{"base-url": groupTarget, "request-rate": groupLoad,
				"random-input-len": groupWorkload, "slo": groupSLO, "result-dir": groupOutput, "sim-gpu": groupSimulator} {
				if seen[flag] != g {
					t.Errorf("--%s under %q, want %q", flag, seen[flag], g)
				}
			}
			if len(seen) < 50 {
				t.Errorf("only %d flags listed", len(seen))
			}
		})
	}
}

// TestHelpListsAnUnplacedFlagUnderOther checks the fallback: a flag the
// table does not know still shows, under Other.
func TestHelpListsAnUnplacedFlagUnderOther(t *testing.T) {
	root := NewRoot(&Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	for _, c := range root.Commands() {
		if c.Name() != "bench" {
			continue
		}
		c.Flags().Bool("brand-new-flag", false, "a flag without a group")
		out := groupedUsage(c)
		other := strings.Index(out, "\nOther flags:\n")
		if other < 0 || !strings.Contains(out[other:], "--brand-new-flag") {
			t.Errorf("the unplaced flag is not under Other:\n%s", out)
		}
	}
}

// sweep's --help names its subcommands, which its grouped flags would
// otherwise hide; their own --help is one plain list of their flags.
func TestSweepHelpNamesItsCommands(t *testing.T) {
	out, _, code := run(t, "", "sweep", "--help")
	if code != 0 || !strings.Contains(out, "  goodput sweep [command]\n\nCommands:\n") || !strings.Contains(out, "\n  serve       Sweep server settings") ||
		!strings.Contains(out, "\n  serve_sla   Find, for each server setting") || !strings.Contains(out, "\n  plot        Draw the curves of a sweep over server settings") ||
		!strings.Contains(out, "\n  plot_pareto Draw the frontier") {
		t.Errorf("sweep --help:\n%s", out)
	}
	out, _, code = run(t, "", "sweep", "serve-sla", "--help")
	if code != 0 || !strings.Contains(out, "\nFlags:\n") || !strings.Contains(out, "--sla-variable string") || strings.Contains(out, "Other flags") {
		t.Errorf("sweep serve-sla --help:\n%s", out)
	}
}
