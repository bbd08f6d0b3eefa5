// Package vllmcheck recomputes the figures of a `vllm bench serve` result
// file from the file's own per-request arrays, the way vLLM's client
// computes them, for tests that hold goodput's vLLM files to vLLM's meaning
// of every key. The definitions follow vLLM's vllm/benchmarks/serve.py
// (calculate_metrics and benchmark) and benchmarks/benchmark_serving.py of
// older releases; a definition is trusted only because it reproduces the
// files vLLM itself wrote (see the tests).
package vllmcheck

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
)

// file is a decoded result file with its arrays, where it has them.
type file struct {
	keys map[string]any
	n    int // requests in the arrays; -1 without arrays

	ttfts, latencies, starts, queues, scheduled []float64
	itls                                        [][]float64
	inLens, outLens                             []int
	ok                                          []bool // succeeded: an empty error
}

// Result is what Check found.
type Result struct {
	Checked   []string // keys whose value agrees with vLLM's definition
	Bad       []string // "key: file has X, vLLM's definition gives Y"
	Unchecked []string // "key: why" for keys Check cannot recompute
}

// Check recomputes every key of keys (a file decoded by encoding/json) it
// can. A key missing from every rule is reported as unchecked with "no
// definition".
func Check(keys map[string]any) Result {
	f, err := parse(keys)
	var res Result
	if err != nil {
		res.Bad = append(res.Bad, err.Error())
		return res
	}
	for _, k := range sortedKeys(keys) {
		want, why := f.expected(k)
		switch {
		case why != "":
			res.Unchecked = append(res.Unchecked, k+": "+why)
		case agree(keys[k], want):
			res.Checked = append(res.Checked, k)
		default:
			res.Bad = append(res.Bad, fmt.Sprintf("%s: file has %v, vLLM's definition gives %v", k, keys[k], want))
		}
	}
	return res
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func parse(keys map[string]any) (*file, error) {
	f := &file{keys: keys, n: -1}
	ttfts, ok := floats(keys["ttfts"])
	if !ok {
		return f, nil
	}
	f.n = len(ttfts)
	f.ttfts = ttfts
	for _, a := range []struct {
		key string
		dst *[]float64
	}{{"latencies", &f.latencies}, {"start_times", &f.starts}, {"queue_times", &f.queues}, {"scheduled_times", &f.scheduled}} {
		if v, ok := floats(keys[a.key]); ok {
			if len(v) != f.n {
				return nil, fmt.Errorf("%s has %d entries, ttfts %d", a.key, len(v), f.n)
			}
			*a.dst = v
		}
	}
	raw, _ := keys["itls"].([]any)
	if len(raw) != f.n {
		return nil, fmt.Errorf("itls has %d entries, ttfts %d", len(raw), f.n)
	}
	for _, r := range raw {
		v, ok := floats(r)
		if !ok {
			return nil, fmt.Errorf("itls holds %v, want lists of numbers", r)
		}
		f.itls = append(f.itls, v)
	}
	var err error
	if f.inLens, err = ints(keys["input_lens"], f.n, "input_lens"); err != nil {
		return nil, err
	}
	if f.outLens, err = ints(keys["output_lens"], f.n, "output_lens"); err != nil {
		return nil, err
	}
	errs, _ := keys["errors"].([]any)
	if len(errs) != f.n {
		return nil, fmt.Errorf("errors has %d entries, ttfts %d", len(errs), f.n)
	}
	for _, e := range errs {
		s, _ := e.(string)
		f.ok = append(f.ok, s == "")
	}
	return f, nil
}

func floats(v any) ([]float64, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(a))
	for i, x := range a {
		if out[i], ok = x.(float64); !ok {
			return nil, false
		}
	}
	return out, true
}

func ints(v any, n int, name string) ([]int, error) {
	fs, ok := floats(v)
	if !ok || len(fs) != n {
		return nil, fmt.Errorf("%s: want %d numbers", name, n)
	}
	out := make([]int, n)
	for i, x := range fs {
		out[i] = int(x)
	}
	return out, nil
}

// statKey matches mean_ttft_ms, p99.9_itl_ms and the like.
var statKey = regexp.MustCompile(`^(mean|median|std|p[0-9.]+)_([a-z0-9_]+)_ms$`)

var dateKey = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}$`)

// expected returns vLLM's value for key, or why it cannot say.
func (f *file) expected(key string) (any, string) {
	k := f.keys
	if m := statKey.FindStringSubmatch(key); m != nil {
		return f.stat(m[1], m[2])
	}
	switch key {
	case "date":
		if s, ok := k[key].(string); ok && dateKey.MatchString(s) {
			return s, ""
		}
		return "YYYYmmdd-HHMMSS", ""
	case "backend", "endpoint_type", "model_id":
		return kind(k[key], "string"), ""
	case "label", "tokenizer_id":
		return kind(k[key], "string", "null"), ""
	case "request_rate":
		if s, ok := k[key].(string); ok {
			return kind(s, "inf"), ""
		}
		return kind(k[key], "number"), ""
	case "burstiness", "num_prompts", "best_of":
		return kind(k[key], "number"), ""
	case "max_concurrency":
		return kind(k[key], "number", "null"), ""
	case "use_beam_search":
		return kind(k[key], "bool"), ""
	case "request_goodput":
		// The SLO it was computed with is not in the file.
		return kind(k[key], "number", "null"), ""
	case "rtfx":
		return 0.0, "" // input audio seconds per second: none for text
	case "percentile_method":
		return "linear", "" // goodput's addition: NumPy's method, vLLM's
	}
	if f.n < 0 {
		return nil, "the file has no per-request arrays"
	}
	switch key {
	case "ttfts", "itls", "latencies", "start_times", "queue_times", "scheduled_times", "input_lens", "output_lens":
		return k[key], "" // the inputs of every other check
	case "errors", "generated_texts", "request_ids":
		a, _ := k[key].([]any)
		if len(a) == f.n {
			return k[key], ""
		}
		return fmt.Sprintf("%d strings", f.n), ""
	case "completed":
		return float64(f.count()), ""
	case "failed":
		return float64(f.n - f.count()), ""
	case "total_input_tokens":
		return float64(f.sum(f.inLens)), ""
	case "total_output_tokens":
		return float64(f.sum(f.outLens)), ""
	}
	dur, ok := k["duration"].(float64)
	if key == "duration" {
		return kind(k[key], "number"), ""
	}
	if !ok || dur <= 0 {
		return nil, "no duration"
	}
	switch key {
	case "request_throughput":
		return float64(f.count()) / dur, ""
	case "output_throughput":
		return float64(f.sum(f.outLens)) / dur, ""
	case "input_throughput":
		return float64(f.sum(f.inLens)) / dur, ""
	case "total_token_throughput":
		return float64(f.sum(f.inLens)+f.sum(f.outLens)) / dur, ""
	case "max_output_tokens_per_s", "max_concurrent_requests":
		if f.starts == nil || f.latencies == nil {
			return nil, "needs start_times and latencies"
		}
		tok, conc := f.peaks()
		if key == "max_concurrent_requests" {
			return float64(conc), ""
		}
		return tok, ""
	}
	return nil, "no definition"
}

// count returns the successful requests.
func (f *file) count() int {
	n := 0
	for _, ok := range f.ok {
		if ok {
			n++
		}
	}
	return n
}

// sum adds v over the successful requests (failed ones carry 0 anyway for
// output_lens, their prompt for input_lens).
func (f *file) sum(v []int) int {
	s := 0
	for i, x := range v {
		if f.ok[i] {
			s += x
		}
	}
	return s
}

// sample returns a metric's values over the successful requests.
func (f *file) sample(metric string) ([]float64, string) {
	switch metric {
	case "tpot", "e2el", "latency", "e2el_including_client_queue":
		if f.latencies == nil {
			// Releases before latencies were saved measured the latency
			// to the stream's end, which the file does not hold.
			return nil, "needs latencies"
		}
	}
	switch metric {
	case "client_queue_time", "e2el_including_client_queue":
		if f.queues == nil {
			return nil, "needs queue_times"
		}
	case "ttft_from_scheduled":
		if f.scheduled == nil || f.starts == nil {
			return nil, "needs scheduled_times and start_times"
		}
	}
	var out []float64
	for i := range f.n {
		if !f.ok[i] {
			continue
		}
		switch metric {
		case "ttft":
			out = append(out, f.ttfts[i])
		case "tpot":
			if f.outLens[i] > 1 {
				out = append(out, (f.latencies[i]-f.ttfts[i])/float64(f.outLens[i]-1))
			}
		case "itl":
			out = append(out, f.itls[i]...)
		case "e2el", "latency": // "latency" in releases before e2el
			out = append(out, f.latencies[i])
		case "client_queue_time":
			out = append(out, f.queues[i])
		case "e2el_including_client_queue":
			out = append(out, f.latencies[i]+f.queues[i])
		case "ttft_from_scheduled":
			out = append(out, f.ttfts[i]+f.starts[i]-f.scheduled[i])
		default:
			return nil, "no definition"
		}
	}
	return out, ""
}

func (f *file) stat(which, metric string) (any, string) {
	if f.n < 0 {
		return nil, "the file has no per-request arrays"
	}
	vals, why := f.sample(metric)
	if why != "" {
		return nil, why
	}
	if len(vals) == 0 {
		return 0.0, "" // np.mean(0) and friends
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	switch which {
	case "mean":
		return 1e3 * mean(sorted), ""
	case "median":
		return 1e3 * metrics.Percentile(sorted, 50, metrics.Linear), ""
	case "std":
		m, s := mean(sorted), 0.0
		for _, v := range sorted {
			s += (v - m) * (v - m)
		}
		return 1e3 * math.Sqrt(s/float64(len(sorted))), ""
	}
	p, err := strconv.ParseFloat(strings.TrimPrefix(which, "p"), 64)
	if err != nil {
		return nil, "bad percentile " + which
	}
	return 1e3 * metrics.Percentile(sorted, p, metrics.Linear), ""
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// peaks is vLLM's max_output_tokens_per_s (chunks in the busiest second
// counted from the first send of a success) and max_concurrent_requests
// (the most successes active in one of those seconds, a request being
// active in each second from its send's to its last token's).
func (f *file) peaks() (float64, int) {
	minStart, maxEnd := math.Inf(1), math.Inf(-1)
	for i := range f.n {
		if f.ok[i] {
			minStart = min(minStart, f.starts[i])
			maxEnd = max(maxEnd, f.starts[i]+f.latencies[i])
		}
	}
	if math.IsInf(minStart, 1) {
		return 0, 0
	}
	tokens := make([]float64, int(math.Ceil(maxEnd-minStart))+1)
	active := make([]int, len(tokens))
	for i := range f.n {
		if !f.ok[i] {
			continue
		}
		t := f.starts[i] + f.ttfts[i]
		times := []float64{t}
		for _, g := range f.itls[i] {
			t += g
			times = append(times, t)
		}
		for _, t := range times {
			if b := int(t - minStart); b >= 0 && b < len(tokens) {
				tokens[b]++
			}
		}
		from, to := int(f.starts[i]-minStart), int(f.starts[i]+f.latencies[i]-minStart)
		for s := from; s <= to && s < len(active); s++ {
			active[s]++
		}
	}
	return slices.Max(tokens), slices.Max(active)
}

// kindOf is a JSON value's kind.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "list"
	}
	return "object"
}

// want is the expectation that v is of one of some kinds (or, for "inf",
// the string itself).
type want struct {
	v     any
	kinds []string
}

func (w want) String() string { return "a " + strings.Join(w.kinds, " or ") }

// kind expects v to be of one of kinds.
func kind(v any, kinds ...string) want { return want{v, kinds} }

// agree compares a file value with an expectation: numbers within a
// relative 1e-9 (the file's decimal rendering), kinds by kind, anything
// else exactly.
func agree(got, w any) bool {
	switch x := w.(type) {
	case want:
		k := kindOf(x.v)
		for _, kk := range x.kinds {
			if kk == k || kk == "inf" && x.v == "inf" {
				return true
			}
		}
		return false
	case float64:
		g, ok := got.(float64)
		return ok && (g == x || math.Abs(g-x) <= 1e-9*math.Max(math.Abs(g), math.Abs(x)))
	case string:
		return got == x
	}
	return fmt.Sprint(got) == fmt.Sprint(w)
}
