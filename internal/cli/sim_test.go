package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/sim"
)

// simOutput is a buffer the running command writes while the test reads.
type simOutput struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (o *simOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *simOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

var servingURL = regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+)`)

// startSimCmd runs `goodput sim args…` until the test cancels it, and
// returns the URL it printed, its output, and a function that cancels it and
// returns its exit code.
func startSimCmd(t *testing.T, args ...string) (string, *simOutput, func() int) {
	t.Helper()
	out, errOut := &simOutput{}, &simOutput{}
	env := &Env{Stdout: out, Stderr: errOut, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs(append([]string{"sim"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stop := func() int {
		cancel()
		select {
		case err := <-done:
			return Code(err)
		case <-time.After(10 * time.Second):
			t.Fatal("goodput sim still running 10 s after cancel")
			return -1
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := servingURL.FindStringSubmatch(out.String()); m != nil {
			t.Cleanup(func() { cancel() })
			return m[1], out, stop
		}
		select {
		case err := <-done:
			t.Fatalf("goodput sim exited early: %v\n%s%s", err, out, errOut)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("goodput sim printed no URL in 10 s:\n%s%s", out, errOut)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSimServesUntilCancelled(t *testing.T) {
	url, out, stop := startSimCmd(t, "--port", "0", "--gpu", "h200", "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--seed", "4")
	for _, want := range []string{
		"goodput sim: serving Qwen/Qwen2.5-0.5B-Instruct at " + url,
		"profile: Qwen2.5-0.5B on H200",
		"prefix caching on",
		"max num seqs 1024, max num batched tokens 8192, chunked prefill on",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, out)
		}
	}
	// Clients use the name they gave --model.
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != "Qwen/Qwen2.5-0.5B-Instruct" {
		t.Errorf("/v1/models = %+v, %v", models, err)
	}
	resp, err = http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"Qwen/Qwen2.5-0.5B-Instruct","prompt":"hi","max_tokens":3}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("completion: %v %v", resp, err)
	}
	resp.Body.Close()
	if code := stop(); code != ExitOK {
		t.Errorf("exit code %d after cancel, want 0", code)
	}
	if !strings.Contains(out.String(), "goodput sim: stopped") {
		t.Errorf("no stop message:\n%s", out)
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Error("still answering after it stopped")
	}
}

func TestSimProfileFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "p.yaml")
	yaml := "gpu: L4\nmodel: Qwen2.5-0.5B\ncalibration:\n  mfu: 0.4\n"
	if err := os.WriteFile(profile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// The file sets GPU and model; --gpu overrides the GPU only.
	_, out, stop := startSimCmd(t, "--port", "0", "--profile", profile, "--gpu", "A100", "--no-enable-prefix-caching",
		"--fault", "error-rate=0.5", "--fault", "overload=4")
	for _, want := range []string{
		"serving Qwen2.5-0.5B at",
		"profile: Qwen2.5-0.5B on A100-80GB",
		"MFU 0.40",
		"prefix caching off",
		"faults: error-rate=0.5 overload=4",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, out)
		}
	}
	stop()
}

func TestSimList(t *testing.T) {
	out, errOut, code := run(t, "", "sim", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`H100-SXM\s+80 GiB\s+3\.35 TB/s\s+989 TFLOP/s`),
		regexp.MustCompile(`Llama-3\.1-8B\s+8\.03B\s+32\s+32 \(8\)\s+128 KiB\s+131072`),
		regexp.MustCompile(`Qwen2\.5-7B\s+7\.62B\s+28\s+28 \(4\)\s+56 KiB`),
	} {
		if !want.MatchString(out) {
			t.Errorf("--list output does not match %v:\n%s", want, out)
		}
	}
}

func TestSimUsageErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strings.TrimPrefix(busy.Addr().String(), "127.0.0.1:")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown gpu", []string{"--gpu", "B300"}, ExitUsage, `--gpu: unknown gpu "B300"`},
		{"unknown model", []string{"--model", "gpt-4"}, ExitUsage, `--model: unknown model "gpt-4"`},
		{"port too large", []string{"--port", "70000"}, ExitUsage, "--port 70000"},
		{"negative port", []string{"--port", "-1"}, ExitUsage, "--port -1"},
		{"zero tensor parallel", []string{"--tensor-parallel-size", "0"}, ExitUsage, "--tensor-parallel-size 0"},
		{"model too big for one GPU", []string{"--model", "Llama-3.1-70B"}, ExitUsage, "raise tensor parallel size (now 1)"},
		{"bad fault", []string{"--fault", "error-rate=2"}, ExitUsage, `--fault: fault "error-rate=2"`},
		{"missing profile", []string{"--profile", "/nonexistent/p.yaml"}, ExitUsage, "--profile: profile: open /nonexistent/p.yaml"},
		{"contradicting cache flags", []string{"--enable-prefix-caching=true", "--no-enable-prefix-caching"}, ExitUsage, "contradicts"},
		{"bad utilization", []string{"--gpu-memory-utilization", "1.5"}, ExitUsage, "--gpu-memory-utilization 1.5: must be in (0, 1]"},
		// 0 is out of range when typed, though the options read it as
		// "the default".
		{"zero utilization", []string{"--gpu-memory-utilization", "0"}, ExitUsage, "--gpu-memory-utilization 0: must be in (0, 1]"},
		{"negative utilization", []string{"--gpu-memory-utilization", "-0.5"}, ExitUsage, "--gpu-memory-utilization -0.5: must be in (0, 1]"},
		{"not a number", []string{"--max-num-seqs", "many"}, ExitUsage, `--max-num-seqs "many": want a whole number`},
		{"negative max num seqs", []string{"--max-num-seqs", "-1"}, ExitUsage, "--max-num-seqs -1: must be positive"},
		{"negative batched tokens", []string{"--max-num-batched-tokens", "-5"}, ExitUsage, "--max-num-batched-tokens -5: must be positive"},
		{"zero block size", []string{"--block-size", "0"}, ExitUsage, "--block-size 0: must be positive"},
		{"unknown kv cache dtype", []string{"--kv-cache-dtype", "fp4"}, ExitUsage, `--kv-cache-dtype "fp4": want one of auto, fp8`},
		{"contradicting chunked prefill flags", []string{"--enable-chunked-prefill=true", "--no-enable-chunked-prefill"}, ExitUsage, "--enable-chunked-prefill=true contradicts"},
		{"prompts beyond the step without chunking", []string{"--no-enable-chunked-prefill", "--max-num-batched-tokens", "2048", "--max-model-len", "4096"}, ExitUsage,
			"max num batched tokens 2048: below max model len 4096"},
		{"positional argument", []string{"extra"}, ExitUsage, `goodput sim takes no arguments, got ["extra"]`},
		{"port in use", []string{"--port", busyPort}, ExitTool, "address already in use"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", append([]string{"sim"}, tt.args...)...)
		if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.name, code, errOut, tt.wantCode, tt.wantErr)
		}
	}
}

func TestSimEngineFlags(t *testing.T) {
	// vLLM's names, vLLM's meanings: a 32-token block, an FP8 KV cache
	// (twice the tokens of the default's), 64 sequences, and whole-prompt
	// prefill, which raises the step's budget to max model len.
	_, out, stop := startSimCmd(t, "--port", "0", "--gpu", "a100", "--max-num-seqs", "64", "--block-size", "32",
		"--kv-cache-dtype", "fp8", "--no-enable-chunked-prefill", "--max-model-len", "16384", "--gpu-memory-utilization", "0.8")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`kv cache: \d+ blocks of 32 tokens \(\d+ tokens, fp8\), prefix caching on`),
		regexp.MustCompile(`max num seqs 64, max num batched tokens 16384, chunked prefill off`),
		regexp.MustCompile(`Llama-3.1-8B on A100-80GB`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("banner does not match %v:\n%s", want, out)
		}
	}
	if code := stop(); code != ExitOK {
		t.Errorf("exit code %d after cancel, want 0", code)
	}
}

func TestSimCalibrate(t *testing.T) {
	dir := t.TempDir()
	points := filepath.Join(dir, "points.tsv")
	table := "id\tsource\tgpu\tmodel\tprecision\tin_len\tout_len\tconcurrency_or_rate\tpub_out_tok_s\tpub_ttft_ms\tpub_ttft_stat\tpub_tpot_ms\tpub_tpot_stat\tnotes\n" +
		"one\tsomewhere\tH100-SXM\tLlama-3.1-8B-Instruct\tBF16\t128-384\t192-320\tc=1\t150\t15\tmean\t6.5\tmean\t20 prompts\n"
	if err := os.WriteFile(points, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "sim", "calibrate", "--points", points)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`one\s+output tok/s\s+150\.0\s+\d+\.\d\s+[+-]\d+\.\d %`),
		regexp.MustCompile(`one\s+TPOT ms\s+mean\s+6\.50\s+6\.\d\d\s+[+-]\d\.\d %`),
		regexp.MustCompile(`TTFT ms\s+1\s+\d+\.\d %`),
	} {
		if !want.MatchString(out) {
			t.Errorf("report does not match %v:\n%s", want, out)
		}
	}
	// Goals missed: exit 3, saying which.
	out, _, code = run(t, "", "sim", "calibrate", "--points", points, "--max-median-error", "0.0001")
	if code != ExitGateFail || !strings.Contains(out, "short of the goal: output tok/s: median absolute error") {
		t.Errorf("tight goal: exit %d, output:\n%s", code, out)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no points", nil, ExitUsage, "--points: give the table"},
		{"missing file", []string{"--points", filepath.Join(dir, "none.tsv")}, ExitTool, "no such file"},
		{"bad reasons", []string{"--points", points, "--reasons", points}, ExitTool, "--reasons: "},
		{"unknown gpu in a point", []string{"--points", writeFile(t, dir, "bad.tsv", strings.Replace(table, "H100-SXM", "Z80", 1))}, ExitTool, `one: unknown gpu "Z80"`},
	} {
		_, errOut, code := run(t, "", append([]string{"sim", "calibrate"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tt.name, code, errOut, tt.code, tt.want)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimFit(t *testing.T) {
	data := "../../sim/fit/testdata/llamacpp/"
	output := filepath.Join(t.TempDir(), "fitted.yaml")
	args := []string{"sim", "fit", "--profile", data + "profile.yaml", "--max-num-batched-tokens", "2048", "--max-evals", "60",
		data + "c1-r1.jsonl", data + "c2-r1.jsonl", data + "c4-r1.jsonl", "--hold-out", data + "c6-r1.jsonl", "-o", output}
	out, errOut, code := run(t, "", args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// llama-server's 4 slots come from its metrics, as nobody said.
	if !strings.Contains(errOut, "max num seqs 4, from the server's metrics") {
		t.Errorf("stderr %q does not say where max num seqs came from", errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`c=1\s+fitted\s+1\s+output tok/s\s+\d+`),
		regexp.MustCompile(`c=6\s+held out\s+1\s+TPOT ms\s+\d`),
		regexp.MustCompile(`median \|error\|, held out: output tok/s \d+\.\d %`),
		regexp.MustCompile(`Wrote .*fitted.yaml`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output does not match %v:\n%s", want, out)
		}
	}
	// The profile reads back, with the server's engine limits, and runs.
	p, err := sim.LoadProfile(output, sim.Profile{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := sim.Resolve(sim.Options{Profile: p})
	if err != nil || info.MaxNumSeqs != 4 || info.MaxNumBatchedTokens != 2048 || p.Model.Name != "tiny-llama" {
		t.Errorf("fitted profile: %+v, %v; want tiny-llama with 4 seqs and 2048 tokens", info, err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no records", []string{"-o", output}, ExitUsage, "give the record files to fit"},
		{"no output", []string{data + "c1-r1.jsonl"}, ExitUsage, "--output: give the file"},
		{"unknown parameter", []string{data + "c1-r1.jsonl", "-o", output, "--params", "mbu,warp"}, ExitUsage, `--params "warp"`},
		{"missing file", []string{data + "none.jsonl", "-o", output}, ExitTool, "no such file"},
		{"unknown gpu", []string{data + "c1-r1.jsonl", "-o", output, "--gpu", "Z80"}, ExitUsage, `--gpu: unknown gpu "Z80"`},
	} {
		_, errOut, code := run(t, "", append([]string{"sim", "fit"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tt.name, code, errOut, tt.code, tt.want)
		}
	}
}
