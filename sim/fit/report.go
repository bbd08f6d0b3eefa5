package fit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// metricNames name the three compared metrics, in Errors' order.
var metricNames = [3]string{"output tok/s", "TTFT ms", "TPOT ms"}

// Write prints the fit: for every load, fitted and held out, the measured
// and simulated metrics and the error of each, then the median absolute
// error per metric over each set, and the fitted calibration.
func (r Result) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "load\tset\tfiles\tmetric\tmeasured\tsimulated\terror\t")
	for _, set := range []struct {
		name string
		cs   []Compared
	}{{"fitted", r.Fitted}, {"held out", r.HeldOut}} {
		for _, c := range set.cs {
			e := c.Errors()
			m := [3]float64{c.Measured.OutputTokS, c.Measured.TTFT, c.Measured.TPOT}
			s := [3]float64{c.Simulated.OutputTokS, c.Simulated.TTFT, c.Simulated.TPOT}
			for i, name := range metricNames {
				if m[i] == 0 {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.4g\t%.4g\t%+.1f %%\t\n", c.Load, set.name, c.Files, name, m[i], s[i], 100*e[i])
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, set := range []struct {
		name string
		cs   []Compared
	}{{"fitted", r.Fitted}, {"held out", r.HeldOut}} {
		if len(set.cs) > 0 {
			fmt.Fprintf(w, "median |error|, %s: %s\n", set.name, medians(set.cs))
		}
	}
	c := r.Profile.Calibration
	fmt.Fprintf(w, "fitted: mbu %.3g, mfu %.3g, step overhead %v, seq overhead %v, request overhead %v, front end service %v\n",
		c.MBU, c.MFU, c.StepOverhead, c.SeqOverhead, c.RequestOverhead, c.FrontEndService)
	return nil
}

// medians describes the median absolute error of each metric over cs.
func medians(cs []Compared) string {
	var parts []string
	for i, name := range metricNames {
		var errs []float64
		for _, c := range cs {
			if [3]float64{c.Measured.OutputTokS, c.Measured.TTFT, c.Measured.TPOT}[i] != 0 {
				errs = append(errs, c.Errors()[i])
			}
		}
		if len(errs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f %%", name, 100*medianAbs(errs)))
		}
	}
	return strings.Join(parts, ", ")
}

// Summary is a few lines saying what the profile was fitted to and how
// well it does, for the head of the profile file.
func (r Result) Summary(fitted, heldOut []Load) string {
	var b strings.Builder
	b.WriteString("Fitted by goodput sim fit to the runs of a real server:\n")
	for _, l := range fitted {
		fmt.Fprintf(&b, "  %s: %s\n", l.Name, files(l))
	}
	fmt.Fprintf(&b, "median |error| over them: %s\n", medians(r.Fitted))
	if len(heldOut) > 0 {
		b.WriteString("held out (predicted, not fitted):\n")
		for _, l := range heldOut {
			fmt.Fprintf(&b, "  %s: %s\n", l.Name, files(l))
		}
		fmt.Fprintf(&b, "median |error| over them: %s\n", medians(r.HeldOut))
	}
	return b.String()
}

func files(l Load) string {
	var names []string
	for _, rp := range l.Replays {
		names = append(names, rp.Path)
	}
	return strings.Join(names, ", ")
}
