package grafana

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/goodput-dev/goodput/autoscale"
	"github.com/goodput-dev/goodput/clientmetrics"
	"github.com/goodput-dev/goodput/promscrape"
)

// knownNames are the metric families a dashboard query may name: goodput's
// own (client metrics and the advice), and the vLLM and SGLang families
// goodput reads, as those engines document them (promscrape's table and
// DESIGN.md's list of server metrics, when the shared folder is beside the
// repository).
func knownNames(t *testing.T) map[string]string {
	t.Helper()
	known := map[string]string{}
	for _, n := range clientmetrics.MetricNames() {
		known[n] = "goodput"
	}
	for _, n := range autoscale.MetricNames() {
		known[n] = "goodput watch --advise"
	}
	for _, e := range []promscrape.Engine{promscrape.VLLM, promscrape.SGLang} {
		for _, n := range promscrape.MetricNames(e) {
			known[n] = string(e)
		}
	}
	b, err := os.ReadFile("../../shared/DESIGN.md")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DESIGN.md: %v", err)
		}
		return known
	}
	_, section, _ := strings.Cut(string(b), "## Server metrics")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, n := range regexp.MustCompile("`((?:vllm|sglang):[a-z_]+)`").FindAllStringSubmatch(section, -1) {
		if _, ok := known[n[1]]; !ok {
			known[n[1]] = "DESIGN.md"
		}
	}
	return known
}

// family returns the family a sample name belongs to: a histogram's
// _bucket, _sum and _count samples are its family's.
func family(name string, known map[string]string) (string, bool) {
	if _, ok := known[name]; ok {
		return name, true
	}
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suf); ok {
			if _, ok := known[base]; ok {
				return base, true
			}
		}
	}
	return "", false
}

// TestDashboard checks the dashboard as Grafana would load it: valid JSON,
// panels with queries, every query PromQL once its variables are expanded,
// every metric it names one goodput, vLLM or SGLang documents, and both
// engines queried wherever both have the metric.
func TestDashboard(t *testing.T) {
	if !json.Valid(JSON) {
		t.Fatal("goodput.json is not valid JSON")
	}
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("uid %q, title %q: want both", d.UID, d.Title)
	}
	known := knownNames(t)
	vars := d.TestVars()
	p := parser.NewParser(parser.Options{})
	queries := d.Queries()
	if len(queries) < 30 {
		t.Fatalf("%d queries, want the dashboard's 30 or more", len(queries))
	}
	used := map[string]bool{}
	engines := map[string]bool{}
	for _, q := range queries {
		expr, err := Expand(q.Expr, vars)
		if err != nil {
			t.Errorf("%s / %s: %v", q.Panel, q.RefID, err)
			continue
		}
		node, err := p.ParseExpr(expr)
		if err != nil {
			t.Errorf("%s / %s: not PromQL: %v\n%s", q.Panel, q.RefID, err, expr)
			continue
		}
		var names []string
		parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				names = append(names, vs.Name)
			}
			return nil
		})
		if len(names) == 0 {
			t.Errorf("%s / %s: names no metric: %s", q.Panel, q.RefID, expr)
		}
		hasV, hasS := false, false
		for _, n := range names {
			fam, ok := family(n, known)
			if !ok {
				t.Errorf("%s / %s: %s is not a metric goodput, vLLM or SGLang documents", q.Panel, q.RefID, n)
				continue
			}
			used[fam] = true
			engines[known[fam]] = true
			hasV = hasV || strings.HasPrefix(fam, "vllm:")
			hasS = hasS || strings.HasPrefix(fam, "sglang:")
		}
		// Where vLLM is asked and SGLang has the same quantity, ask SGLang
		// too, so that the panel works on either.
		if hasV && !hasS {
			for _, n := range names {
				if fam, _ := family(n, known); sglangTwin(fam) != "" {
					t.Errorf("%s / %s: asks vLLM's %s but not SGLang's %s", q.Panel, q.RefID, fam, sglangTwin(fam))
				}
			}
		}
	}
	for _, e := range []string{"goodput", "vllm", "sglang", "goodput watch --advise"} {
		if !engines[e] {
			t.Errorf("no panel reads %s's metrics", e)
		}
	}
	// The panels seed 004 asks for, and the client's side of each.
	for _, want := range []string{
		"goodput_time_to_first_token_seconds", "vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds",
		"goodput_inter_token_latency_seconds", "goodput_time_per_output_token_seconds", "vllm:inter_token_latency_seconds",
		"goodput_good_output_tokens_total", "goodput_output_tokens_total", "vllm:generation_tokens_total", "vllm:prompt_tokens_total",
		"vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds",
		"vllm:kv_cache_usage_perc", "sglang:token_usage", "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:prefix_cache_hits_total", "sglang:cache_hit_rate", "goodput_desired_replicas", "goodput_requests_total",
		"goodput_dispatch_lag_seconds", "goodput_requests_in_flight",
	} {
		if !used[want] {
			t.Errorf("no query reads %s", want)
		}
	}
}

// sglangTwin returns SGLang's name for the quantity a vLLM family
// measures, when SGLang exports it.
func sglangTwin(vllm string) string {
	twins := map[string]string{
		"vllm:time_to_first_token_seconds": "sglang:time_to_first_token_seconds",
		"vllm:inter_token_latency_seconds": "sglang:inter_token_latency_seconds",
		"vllm:e2e_request_latency_seconds": "sglang:e2e_request_latency_seconds",
		"vllm:num_requests_running":        "sglang:num_running_reqs",
		"vllm:num_requests_waiting":        "sglang:num_queue_reqs",
		"vllm:kv_cache_usage_perc":         "sglang:token_usage",
		"vllm:generation_tokens_total":     "sglang:generation_tokens_total",
		"vllm:prompt_tokens_total":         "sglang:prompt_tokens_total",
	}
	return twins[vllm]
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"model": ".*", "__rate_interval": "1m"}
	for _, tc := range []struct {
		in, want, err string
	}{
		{`rate(x{m=~"$model"}[$__rate_interval])`, `rate(x{m=~".*"}[1m])`, ""},
		{`rate(x{m=~"${model}"}[${__rate_interval}])`, `rate(x{m=~".*"}[1m])`, ""},
		{`x{m=~"${model:regex}"}`, `x{m=~".*"}`, ""},
		{`x{run=~"$run"}`, "", "no value for $run"},
		{`sum(x)`, `sum(x)`, ""},
	} {
		got, err := Expand(tc.in, vars)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Expand(%q): %v, want an error with %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestProvisioningExample: the provisioning files name the dashboard's
// data source type and a folder of dashboards.
func TestProvisioningExample(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"provisioning/dashboards/goodput.yaml", "type: file"},
		{"provisioning/datasources/prometheus.yaml", "type: prometheus"},
		{"prometheus.yml", "job_name: goodput-advise"},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s lacks %q", tc.path, tc.want)
		}
	}
	d, _ := Load()
	var names []string
	for _, v := range d.Templating.List {
		names = append(names, v.Name)
	}
	if !slices.Contains(names, "datasource") {
		t.Errorf("variables %v: want a datasource variable for the provisioned data source", names)
	}
}

// TestTitlesPromiseWhatTheyShow: a panel titled "… p50 / p99: client and
// server" has a client and a server series of every percentile it names.
func TestTitlesPromiseWhatTheyShow(t *testing.T) {
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	pct := regexp.MustCompile(`\bp\d+\b`)
	for _, p := range d.Panels {
		if !strings.HasSuffix(p.Title, "client and server") {
			continue
		}
		for _, q := range pct.FindAllString(p.Title, -1) {
			for _, side := range []string{"client", "server"} {
				found := false
				for _, tg := range p.Targets {
					found = found || strings.HasPrefix(tg.Legend, side) && slices.Contains(strings.Fields(tg.Legend), q)
				}
				if !found {
					t.Errorf("%q: no %s %s series", p.Title, side, q)
				}
			}
		}
	}
}
