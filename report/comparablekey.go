package report

import (
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// Comparability is what must match for two runs to be compared, read from
// a run's header and result alone, as a store of many runs needs it: the
// workload, the load's shape and the SLO, with the stop criteria, the
// warm-up and the percentile method that Compare also checks. Compare's
// own warnings go further once the records are read (length distributions,
// finish reasons, scheduled times); two runs with equal Comparability pass
// the checks that come from the configuration.
type Comparability struct {
	Model    string `json:"model,omitempty"`
	Workload string `json:"workload"` // without its seed
	Load     string `json:"load"`     // the arrival keys Compare reads, without the seed
	SLO      string `json:"slo,omitempty"`
	Stop     string `json:"stop"`   // ignore_eos and min_tokens
	Warmup   bool   `json:"warmup"` // warm-up requests were left out
	Method   string `json:"method"` // the percentile method
}

// ComparabilityOf reads the comparability of a run from its header and
// result (nil result: only what the header says).
func ComparabilityOf(h record.Header, res *metrics.Result) Comparability {
	c := Comparability{}
	if v, ok := configValue(h, "model"); ok {
		c.Model = fmt.Sprint(v)
	}
	var work []string
	for _, k := range []string{"backend", "endpoint", "workload", "dataset", "dataset_path"} {
		if v, ok := configValue(h, k); ok && fmt.Sprint(v) != "" {
			work = append(work, k+"="+loadText(v))
		}
	}
	c.Workload = strings.Join(work, "; ")
	var load []string
	for _, k := range loadKeys {
		if v, ok := configValue(h, k); ok {
			load = append(load, k+"="+loadText(v))
		}
	}
	c.Load = strings.Join(load, "; ")
	var stop []string
	for _, k := range []string{"ignore_eos", "min_tokens"} {
		if v, ok := configValue(h, k); ok {
			stop = append(stop, fmt.Sprintf("%s=%v", k, v))
		}
	}
	c.Stop = strings.Join(stop, "; ")
	run := &Run{Header: h, Result: res}
	if res == nil {
		run.Result = &metrics.Result{}
	}
	c.Warmup = warm(run)
	if m, ok := HeaderMethod(h); ok {
		c.Method = m.String()
	} else if res != nil {
		c.Method = res.Method.String()
	}
	if res != nil && res.Goodput != nil {
		c.SLO = res.Goodput.SLO
	}
	return c
}
