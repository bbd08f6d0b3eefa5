package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// TestExitCodes holds one row for every way a command ends that README's
// "Exit codes" table names: the code it ends with and the words that say
// why. Code 130 (interrupted) needs a signal; cmd/goodput's
// TestSIGINTLeavesCompleteRecords and TestSweepResume check it.
func TestExitCodes(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 13})
	dir := writeFiles(t, map[string]string{
		"good.jsonl":     runHeader + goodRecord + runTrailer,
		"empty.jsonl":    "",
		"negative.jsonl": runHeader + `{"seq":0,"s":0,"t0":5,"te":4}` + "\n",
		// a sweep whose one point claims 200 % attainment
		"attain.json": `{"schema":1,"points":[{"load":"c=16","repeats":[{"requests":100,"request_throughput":3,"attainment":2}]}]}`,
		// a sweep with a negative throughput
		"negative.json": `{"schema":1,"points":[{"load":"c=16","repeats":[{"requests":100,"request_throughput":-3,"attainment":0.95}]}]}`,
	})
	p := func(name string) string { return filepath.Join(dir, name) }

	// A sweep directory whose sweep-config.json is corrupt.
	corrupt := filepath.Join(t.TempDir(), "sweep")
	if err := os.MkdirAll(corrupt, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(corrupt, "sweep-config.json"), []byte(`{"schema":1,"settings":{"seed":`), 0o644)

	// The records of an earlier run of the same name.
	runs := t.TempDir()
	os.WriteFile(filepath.Join(runs, "mine.jsonl"), []byte(runHeader+goodRecord+runTrailer), 0o644)

	bench := []string{"bench", "--base-url", url, "--num-prompts", "4", "--random-input-len", "16", "--random-output-len", "4", "--quiet", "--no-server-metrics"}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		// 0: success
		{"analyze", []string{"analyze", p("good.jsonl")}, ExitOK, ""},
		{"bench", bench, ExitOK, ""},

		// 1: the tool failed. Unreadable data:
		{"no file", []string{"analyze", p("missing.jsonl")}, ExitTool, "missing.jsonl"},
		{"no requests", []string{"analyze", p("empty.jsonl")}, ExitTool, "no requests in " + p("empty.jsonl")},
		{"impossible record", []string{"analyze", p("negative.jsonl")}, ExitTool, p("negative.jsonl") + `:2: impossible record: "te" 4 is before "t0" 5`},
		{"plan from 200 % attainment", []string{"plan", "--from", p("attain.json"), "--peak-qps", "10"}, ExitTool, `"attainment" 2: must be from 0 to 1`},
		{"plan from a negative rate", []string{"plan", "--from", p("negative.json"), "--peak-qps", "10"}, ExitTool, `"request_throughput" -3: must be ≥ 0`},
		{"resume a corrupt sweep-config.json", []string{"sweep", "--virtual", "--concurrency", "1", "--num-prompts", "8", "--result-dir", corrupt, "--resume"},
			ExitTool, filepath.Join(corrupt, "sweep-config.json")},
		// an unreachable server
		{"server down", []string{"bench", "--base-url", "http://127.0.0.1:1", "--num-prompts", "1", "--quiet"}, ExitTool, "http://127.0.0.1:1"},

		// 2: usage.
		{"bad flag", []string{"bench", "--request-rate", "fast"}, ExitUsage, "--request-rate"},
		{"simulator flag with a server", append(slices.Clone(bench), "--sim-gpu", "A100"), ExitUsage, "--sim-gpu configures the built-in simulator, which does not run with --base-url"},
		{"simulator fault with a server", append(slices.Clone(bench), "--sim-fault", "error_rate=0.5"), ExitUsage, "--sim-fault configures the built-in simulator"},
		{"sweep simulator flag with a server", []string{"sweep", "--base-url", url, "--concurrency", "1", "--sim-seed", "3", "--dry-run"}, ExitUsage, "--sim-seed configures the built-in simulator"},
		{"simulator engine flag with a server", append(slices.Clone(bench), "--sim-max-num-seqs", "64"), ExitUsage, "--sim-max-num-seqs configures the built-in simulator"},
		{"sweep simulator engine flag with a server", []string{"sweep", "--base-url", url, "--concurrency", "1", "--sim-block-size", "32", "--dry-run"}, ExitUsage, "--sim-block-size configures the built-in simulator"},
		// a dry run refuses what the run would, bench's and sweep's
		{"bench dry run, negative warm-ups", []string{"bench", "--dry-run", "--num-warmups", "-5"}, ExitUsage, "--num-warmups must be ≥ 0, got -5"},
		{"bench dry run, not an http URL", []string{"bench", "--dry-run", "--base-url", "ftp://x"}, ExitUsage, `--base-url "ftp://x": want an absolute http://`},
		{"an empty base URL", []string{"bench", "--base-url", ""}, ExitUsage, `invalid argument "" for "--base-url" flag: empty: give the server's URL`},
		{"a base URL with a query", []string{"bench", "--dry-run", "--base-url", "http://h:1?x=1"}, ExitUsage, `--base-url "http://h:1?x=1": a base URL takes no query or fragment`},
		{"a base URL with the API's path", []string{"bench", "--dry-run", "--base-url", "http://h:1/v1/chat/completions"}, ExitUsage,
			`--base-url "http://h:1/v1/chat/completions" ends in an API's path: give the server's address, http://h:1, and the path as --endpoint /v1/chat/completions`},
		{"the chat endpoint for completions", []string{"bench", "--dry-run", "--base-url", "http://h:1", "--endpoint", "/v1/chat/completions"}, ExitUsage,
			"--endpoint /v1/chat/completions is the API of --backend openai-chat"},
		{"vLLM's completions backend, the chat endpoint", []string{"bench", "--dry-run", "--base-url", "http://h:1", "--backend", "vllm", "--endpoint", "/v1/chat/completions"}, ExitUsage,
			"--backend vllm sends completions requests (a prompt): give --backend openai-chat"},
		// The simulator speaks vLLM's API only: another protocol's every
		// request would be a 404.
		{"the simulator and TGI's API", []string{"bench", "--backend", "tgi"}, ExitUsage,
			"--backend tgi: the built-in simulator serves vLLM's OpenAI API (--backend openai, openai-chat or openai-responses); give the TGI server's --base-url"},
		{"the simulator and llama.cpp's API", []string{"bench", "--backend", "llamacpp"}, ExitUsage, "give the llama.cpp server's --base-url"},
		{"a virtual sweep and Ollama's API", []string{"sweep", "--virtual", "--backend", "ollama", "--concurrency", "1"}, ExitUsage, "give the Ollama server's --base-url"},
		{"fewer prompts than shared prefixes", []string{"bench", "--dataset-name", "prefix_repetition", "--num-prompts", "3"}, ExitUsage,
			"--num-prompts 3 is below --prefix-repetition-num-prefixes 10: every prefix needs a request"},
		{"a negative scrape interval", []string{"bench", "--dry-run", "--scrape-interval", "-1s"}, ExitUsage, "--scrape-interval -1s: want 10ms or more"},
		{"a scrape interval of a nanosecond", []string{"bench", "--dry-run", "--scrape-interval", "1ns"}, ExitUsage, "--scrape-interval 1ns: want 10ms or more"},
		{"an empty SLO", []string{"bench", "--slo", ""}, ExitUsage, `invalid argument "" for "--slo" flag: empty: give conditions`},
		{"sweep, empty concurrencies", []string{"sweep", "--concurrency", ""}, ExitUsage, `invalid argument "" for "--concurrency" flag: empty: give concurrencies`},
		{"a run name with a directory", []string{"bench", "--dry-run", "--run-name", "../out"}, ExitUsage, `--run-name "../out": a file name stem, without a directory`},
		{"sweep dry run, bad prompt format", []string{"sweep", "--dry-run", "--prompt-format", "bogus"}, ExitUsage, `--prompt-format "bogus"`},
		{"virtual sweep, negative warm-ups", []string{"sweep", "--virtual", "--concurrency", "1", "--num-prompts", "2", "--num-warmups", "-5",
			"--result-dir", filepath.Join(t.TempDir(), "s")}, ExitUsage, "--num-warmups must be ≥ 0, got -5"},
		// a word that names no command, at the top and under history
		// (which would print its help and exit 0), and an argument to a
		// command that takes none
		{"unknown command", []string{"bnech"}, ExitUsage, `unknown command "bnech" for "goodput" (did you mean bench?)`},
		{"unknown history command", []string{"history", "lsit", "--history", p("none.db")}, ExitUsage, `unknown command "lsit" for "goodput history"`},
		{"argument to version", []string{"version", "extra"}, ExitUsage, `unknown command "extra"`},
		{"same run name", append(slices.Clone(bench), "--result-dir", runs, "--run-name", "mine"), ExitUsage,
			filepath.Join(runs, "mine.jsonl") + " already exists (an earlier run's): give another --run-name, or --overwrite"},

		// 2: a bad flag, told before anything starts (here the built-in
		// simulator, which says so when it does).
		{"negative concurrency, no server", []string{"bench", "--max-concurrency", "-3"}, ExitUsage, "--max-concurrency must be ≥ 0, got -3"},
		{"sweep, negative cap, no server", []string{"sweep", "--max-concurrency", "-3"}, ExitUsage, "--max-concurrency must be ≥ 0, got -3"},
		{"temperature NaN, no server", []string{"bench", "--temperature", "NaN"}, ExitUsage, "--temperature NaN: want a finite number"},
		{"sweep, top-p inf", []string{"sweep", "--top-p", "inf"}, ExitUsage, "--top-p +Inf: want a finite number"},
		{"sweep, negative prompts, no server", []string{"sweep", "--num-prompts", "-1"}, ExitUsage, "--num-prompts must be ≥ 0, got -1"},

		// 3: a gate failed.
		{"gate", []string{"analyze", p("good.jsonl"), "--gate", "p99(ttft)<=1ms"}, ExitGateFail, "1 of 1 gates failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q\n%s", code, tc.code, errOut, tc.want, out)
			}
			if code == ExitUsage && strings.Contains(errOut, "benchmarking the built-in simulator at") {
				t.Errorf("a usage error started the simulator first: %q", errOut)
			}
		})
	}
	// --overwrite replaces the earlier run.
	if _, errOut, code := run(t, "", append(slices.Clone(bench), "--result-dir", runs, "--run-name", "mine", "--overwrite")...); code != ExitOK {
		t.Errorf("--overwrite: exit %d: %s", code, errOut)
	}
}

// Interrupted before the run starts (here while waiting for a server that
// accepts connections and never answers its readiness check), bench exits
// 130 saying nothing was measured, as an interruption during the run does,
// not 1 with "context canceled".
func TestBenchInterruptedBeforeTheRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var conns []net.Conn // held open, never answered
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs([]string{"bench", "--base-url", "http://" + ln.Addr().String(), "--model", "m",
		"--num-prompts", "2", "--no-calibrate", "--ready-check-timeout-sec", "30"})
	start := time.Now()
	err = root.ExecuteContext(ctx)
	if code := Code(err); code != ExitInterrupt || !strings.Contains(err.Error(), "interrupted before the run started") {
		t.Errorf("exit %d, %v; want %d, interrupted before the run started", code, err, ExitInterrupt)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to stop after the interruption", d)
	}
}

// TestMessageNamesGoodputOnce: an error is printed after "goodput: " unless
// it begins with the command that failed, which names goodput already.
func TestMessageNamesGoodputOnce(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--foo"}, "goodput bench: --foo: unknown flag"},
		{[]string{"bench", "--num-prompts", "x"}, `goodput bench: --num-prompts "x": want a whole number`},
		{[]string{"sweep", "--seed", "-5"}, `goodput sweep: --seed "-5": want a whole number, 0 or more`},
		{[]string{"bench", "--duration", "5x"}, `goodput bench: --duration "5x": want a duration with its unit, such as 500ms, 30s or 5m`},
		{[]string{"bench", "--temperature", "hot"}, `goodput bench: --temperature "hot": want a number`},
		{[]string{"bench", "--ignore-eos=maybe"}, `goodput bench: --ignore-eos "maybe": want true or false`},
		{[]string{"plan", "--max-num-seqs", "1e99"}, `goodput plan: --max-num-seqs "1e99": want a whole number`},
		{[]string{"bench", "--max-concurrency", "-3"}, "goodput: --max-concurrency must be ≥ 0, got -3"},
	} {
		var out, errOut bytes.Buffer
		root := NewRoot(&Env{Stdout: &out, Stderr: &errOut})
		root.SetArgs(tt.args)
		err := root.ExecuteContext(context.Background())
		if err == nil {
			t.Fatalf("%v: no error", tt.args)
		}
		if got := Message(err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%v: printed %q, want it to begin %q", tt.args, got, tt.want)
		}
	}
}
