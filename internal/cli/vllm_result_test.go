package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/internal/vllmcheck"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
)

func decodeJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

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

// vllmRun runs goodput with --save-result --save-detailed against a
// simulator and returns the directory, vLLM's result file, the records and
// the summary printed.
func vllmRun(t *testing.T) (dir, result, records, summary string) {
	t.Helper()
	_, url := simtest.Serve(t, sim.Options{Seed: 2, ServedModelName: "meta-llama/Llama-3.1-8B-Instruct"})
	dir = t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--backend", "vllm", "--model", "meta-llama/Llama-3.1-8B-Instruct",
		"--dataset-name", "sharegpt", "--dataset-path", "../../workload/testdata/sharegpt_small.json", "--num-prompts", "12",
		"--request-rate", "60", "--max-concurrency", "4", "--goodput", "ttft:500", "tpot:50",
		"--percentile-metrics", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue", "--metric-percentiles", "50,90,99",
		"--metadata", "tp=1", "gpu=sim", "--save-result", "--save-detailed", "--result-dir", dir, "--run-name", "run", "--quiet", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "vllm-60.0qps-concurrency4-Llama-3.1-8B-Instruct-*.json"))
	if len(matches) != 1 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("vLLM's file name: %v in %v", matches, entries)
	}
	if !regexp.MustCompile(`-[0-9]{8}-[0-9]{6}\.json$`).MatchString(matches[0]) {
		t.Errorf("file name %s lacks vLLM's date", matches[0])
	}
	return dir, matches[0], filepath.Join(dir, "run.jsonl"), out
}

// goodput's --save-result --save-detailed file against result files vLLM's
// own client wrote: every key of both has the same kind of value, and the
// same meaning on the file's own requests: the definitions that reproduce
// vLLM's figures from vLLM's arrays (internal/vllmcheck) reproduce
// goodput's figures from goodput's arrays.
func TestVLLMResultFileMatchesVLLMsKeyByKey(t *testing.T) {
	_, path, records, _ := vllmRun(t)
	ours := decodeJSONFile(t, path)
	// The arrays are the records' requests, seen from their sends, in the
	// order of the requests (the records are in the order they ended):
	// TTFT is the first token − the send, as vLLM's client measures it,
	// while the wait for a concurrency slot stays in queue_times.
	f, err := runfile.Open(records, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ttfts, queues := ours["ttfts"].([]any), ours["queue_times"].([]any)
	waited := false
	for i := 0; ; i++ {
		var r record.Record
		if err := f.Next(&r); err == io.EOF {
			if i != len(ttfts) {
				t.Errorf("%d records, %d ttfts", i, len(ttfts))
			}
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if i >= len(ttfts) {
			t.Fatalf("more records than ttfts")
		}
		j := int(r.Seq)
		if want := float64(r.Chunks[0].At-r.Sent) / 1e9; math.Abs(ttfts[j].(float64)-want) > 1e-9 {
			t.Errorf("request %d: ttft %v, want %v (from the send)", j, ttfts[j], want)
		}
		if want := float64(r.Sent-r.Scheduled) / 1e9; math.Abs(queues[j].(float64)-want) > 1e-9 {
			t.Errorf("request %d: queue %v, want %v", j, queues[j], want)
		}
		waited = waited || r.Sent-r.Scheduled > 1e6
	}
	if !waited {
		t.Error("no request waited for a slot: the check above proves nothing")
	}
	oursCheck := vllmcheck.Check(ours)
	if len(oursCheck.Bad) > 0 {
		t.Errorf("goodput's figures disagree with vLLM's definitions:\n%s", strings.Join(oursCheck.Bad, "\n"))
	}
	for _, u := range oursCheck.Unchecked {
		// tp and gpu are --metadata, kept as given.
		if !strings.HasPrefix(u, "tp:") && !strings.HasPrefix(u, "gpu:") {
			t.Errorf("goodput's file has a key no definition checks: %s", u)
		}
	}
	for _, fixture := range []string{"vllm_v0.5.4_detailed.json", "vllm_v0.25.1_sweep_run.json"} {
		theirs := decodeJSONFile(t, filepath.Join("..", "..", "vllmresult", "testdata", fixture))
		theirCheck := vllmcheck.Check(theirs)
		shared := 0
		for k, v := range theirs {
			w, ok := ours[k]
			if !ok {
				continue
			}
			shared++
			// vLLM writes a finite request_rate as a number, an infinite one as "inf".
			if kindOf(w) != kindOf(v) && v != nil && w != nil && v != "inf" {
				t.Errorf("%s: %s holds a %s, goodput's file a %s", fixture, k, kindOf(v), kindOf(w))
			}
			if !slices.Contains(oursCheck.Checked, k) {
				t.Errorf("%s: %s is in both, but its meaning in goodput's file was not checked", fixture, k)
			}
			if len(theirCheck.Bad) > 0 {
				t.Errorf("%s: vLLM's own file disagrees with the definitions: %v", fixture, theirCheck.Bad)
			}
		}
		if shared < 20 {
			t.Errorf("%s: only %d keys in common", fixture, shared)
		}
	}
	// Every key of vLLM's recent file is in goodput's (the sweep tool adds
	// run_number and max_num_seqs), and so are the keys vLLM writes since.
	recent := decodeJSONFile(t, filepath.Join("..", "..", "vllmresult", "testdata", "vllm_v0.25.1_sweep_run.json"))
	delete(recent, "run_number")
	delete(recent, "max_num_seqs")
	for _, k := range []string{"latencies", "queue_times", "start_times", "generated_texts", "errors", "ttfts", "itls",
		"input_lens", "output_lens", "mean_client_queue_time_ms", "p99_e2el_including_client_queue_ms", "p90_tpot_ms"} {
		recent[k] = nil
	}
	for k := range recent {
		if _, ok := ours[k]; !ok {
			t.Errorf("goodput's file lacks vLLM's key %s", k)
		}
	}
	// The keys whose meaning needs the run, not the file.
	for k, want := range map[string]any{
		"endpoint_type": "vllm", "backend": "vllm", "label": nil, "model_id": "meta-llama/Llama-3.1-8B-Instruct",
		"num_prompts": 12.0, "request_rate": 60.0, "burstiness": 1.0, "max_concurrency": 4.0, "tp": "1", "gpu": "sim",
	} {
		if ours[k] != want {
			t.Errorf("%s = %v, want %v", k, ours[k], want)
		}
	}
	if g, ok := ours["request_goodput"].(float64); !ok || g <= 0 {
		t.Errorf("request_goodput = %v with --goodput", ours["request_goodput"])
	}
}

// goodput analyze reads back goodput's vLLM file as the run's records:
// the same TTFT, TPOT, ITL and e2e, to the last printed digit.
func TestAnalyzeVLLMFileEqualsRecords(t *testing.T) {
	_, path, records, _ := vllmRun(t)
	blocks := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			for _, m := range []string{"TTFT (ms):", "TPOT (ms):", "ITL (ms):", "E2EL (ms):"} {
				if strings.Contains(l, m) {
					keep = append(keep, l)
				}
			}
		}
		return strings.Join(keep, "\n")
	}
	var got [2]string
	for i, in := range []string{records, path} {
		out, errOut, code := run(t, "", "analyze", in, "--metric-percentiles", "50,90,99", "--slo", "none")
		if code != 0 {
			t.Fatalf("analyze %s: exit %d\n%s", in, code, errOut)
		}
		got[i] = blocks(out)
	}
	if got[0] == "" || strings.Count(got[0], "\n") != 15 {
		t.Fatalf("latency blocks of the records:\n%s", got[0])
	}
	if got[0] != got[1] {
		t.Errorf("records:\n%s\nvLLM file:\n%s", got[0], got[1])
	}
}

// The summary prints vLLM's client-side queueing blocks that
// --percentile-metrics names, with the file's figures, and a P50 line
// beside each median, as vLLM does for --metric-percentiles 50,90,99; the
// file's arrays are in the order of the requests, as vLLM's are.
func TestVLLMSummaryHasTheFilesQueueBlocks(t *testing.T) {
	_, path, _, out := vllmRun(t)
	file := decodeJSONFile(t, path)
	for _, b := range []struct{ title, short, key string }{
		{"Client-side Queueing", "Client Queue Time", "client_queue_time"},
		{"Queue-inclusive End-to-end Latency", "E2EL incl. Client Queue", "e2el_including_client_queue"},
	} {
		if !strings.Contains(out, b.title) {
			t.Errorf("summary lacks the %s block:\n%s", b.title, out)
		}
		for _, stat := range []struct{ line, key string }{{"Mean", "mean"}, {"Median", "median"}, {"P50", "p50"}, {"P99", "p99"}} {
			v, ok := file[stat.key+"_"+b.key+"_ms"].(float64)
			if !ok {
				t.Fatalf("file lacks %s_%s_ms", stat.key, b.key)
			}
			want := fmt.Sprintf("%s %s (ms):", stat.line, b.short)
			if line := lineWith(out, want); !strings.HasSuffix(line, " "+strconv.FormatFloat(v, 'f', 2, 64)) {
				t.Errorf("summary %q, file %.4f", line, v)
			}
		}
	}
	if !strings.Contains(out, "P50 TTFT (ms):") {
		t.Errorf("summary lacks P50 TTFT:\n%s", out)
	}
	ids, _ := file["request_ids"].([]any)
	if len(ids) != 12 {
		t.Fatalf("request_ids %v", file["request_ids"])
	}
	for i, id := range ids {
		if s, _ := id.(string); !strings.HasSuffix(s, "-"+strconv.Itoa(i)) {
			t.Errorf("request_ids[%d] = %v: not in the order of the requests %v", i, id, ids)
			break
		}
	}
}

// lineWith returns the first line of out that begins with prefix,
// trailing spaces cut.
func lineWith(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}

// Without --num-prompts, vLLM's file says how many prompts the run was
// sized to: the built-in simulator's 200, not the flag's default of 1000.
func TestVLLMFileCountsThePromptsOfTheRun(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run(t, "", "bench", "--random-input-len", "8", "--random-output-len", "2", "--quiet",
		"--save-result", "--result-dir", dir, "--result-filename", "res.json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res := decodeJSONFile(t, filepath.Join(dir, "res.json"))
	if res["num_prompts"] != float64(simDefaultPrompts) || res["completed"] != float64(simDefaultPrompts) {
		t.Errorf("num_prompts %v, completed %v; want %d each", res["num_prompts"], res["completed"], simDefaultPrompts)
	}
}
