package realtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Every backend that speaks to llama.cpp, closed loops of 1, 4 and 16 and
// an open loop: no request fails, and the records' token counts add up to
// the server's own counters (the prompt tokens it processed plus those it
// served from its cache; the tokens it generated).
func TestBenchEveryBackend(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		loads := []struct {
			name string
			args []string
		}{
			{"c1", []string{"--max-concurrency", "1", "--num-prompts", "12"}},
			{"c4", []string{"--max-concurrency", "4", "--num-prompts", "24"}},
			{"c16", []string{"--max-concurrency", "16", "--num-prompts", "48"}},
			{"open loop", []string{"--request-rate", "40", "--arrival", "constant", "--num-prompts", "24"}},
		}
		for _, b := range []string{"openai", "openai-chat", "openai-responses", "llamacpp"} {
			chat := b == "openai-chat" || b == "openai-responses"
			for i, l := range loads {
				t.Run(b+" "+l.name, func(t *testing.T) {
					args := append([]string{"--backend", b, "--random-input-len", "64", "--random-output-len", "32",
						"--seed", fmt.Sprint(100 + i)}, l.args...)
					if !chat {
						// Token ids, sent without a probe, so that the server
						// sees nothing but the measured requests.
						args = append(args, "--prompt-format", "ids")
					}
					p0, g0 := counters(t, s.URL)
					out, recs := bench(t, s.URL, 0, append(args, tf...)...)
					p1, g1 := counters(t, s.URL)
					c := out.Result.Counts
					if c.Failed != 0 || c.Completed != c.Total || int(c.Total) != len(recs) {
						t.Fatalf("counts %+v for %d records", c, len(recs))
					}
					for i := range recs {
						r := &recs[i]
						n := 0
						for _, ch := range r.Chunks {
							n += int(ch.Tokens)
						}
						if r.TokenSource != record.SourceUsage || n != r.OutputTokens || r.OutputTokens < 1 || r.OutputTokens > 32 || !r.CacheReported {
							t.Errorf("%s; chunks carry %d", describe(r), n)
						}
						if !chat && r.InputTokens != 64 {
							t.Errorf("%s: token-id prompts of 64 tokens", describe(r))
						}
					}
					in, gen, cached := sums(recs)
					if float64(gen) != g1-g0 || float64(in-cached) != p1-p0 {
						t.Errorf("records: %d output, %d input of which %d cached; the server counted %v generated, %v prompt tokens processed",
							gen, in, cached, g1-g0, p1-p0)
					}
					for _, w := range out.Warnings {
						if strings.Contains(w, "different token count") {
							t.Errorf("warning: %s", w)
						}
					}
					t.Logf("%d requests, %d retried on a new connection", c.Total, c.Retried)
				})
			}
		}
	})
}

// The server closes every streamed response's connection although it
// says Keep-Alive: with keep-alive the requests that meet a closed
// connection are sent again and counted; without it none needs to be.
func TestKeepAlivePolicy(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		args := []string{"--max-concurrency", "4", "--num-prompts", "32", "--random-input-len", "32", "--random-output-len", "8",
			"--prompt-format", "ids", "--seed", "31"}
		on, recs := bench(t, s.URL, 0, append(args, tf...)...)
		retried := 0
		for i := range recs {
			retried += recs[i].Retries
		}
		// How many meet a closed connection is the race's: the count must
		// agree with the records, and no request may fail.
		if on.Result.Counts.Failed != 0 || on.Result.Counts.Retried != int64(retried) {
			t.Errorf("keep-alive: counts %+v, %d records retried", on.Result.Counts, retried)
		}
		t.Logf("keep-alive: %d of 32 requests retried", retried)
		off, _ := bench(t, s.URL, 0, append(append(args, tf...), "--keepalive=false")...)
		if c := off.Result.Counts; c.Failed != 0 || c.Retried != 0 {
			t.Errorf("keep-alive off: counts %+v", c)
		}
	})
}

// llama-server gives each accepted connection to one of a few HTTP
// workers, which waits up to 5 s for its request: a burst sent on
// connections dialled ahead never waits behind one left idle. Before the
// pool dialled in order, 8 requests at once took 4-5 s in one run in
// three to eight; twelve runs of a fifth of a second each find it most
// times.
func TestABurstDoesNotWaitForIdleConnections(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		for run := range 12 {
			_, recs := bench(t, s.URL, 0, append([]string{"--num-prompts", "8", "--random-input-len", "16",
				"--random-output-len", "16", "--ignore-eos", "--prompt-format", "ids", "--seed", freshSeed()}, tf...)...)
			for i := range recs {
				r := &recs[i]
				if !r.OK() || len(r.Chunks) == 0 {
					t.Fatalf("run %d: %s", run, describe(r))
				}
				if ttft := time.Duration(r.Chunks[0].At - r.Scheduled); ttft > 2*time.Second {
					t.Errorf("run %d: request %d waited %v for its first token: it queued behind an idle connection", run, r.Seq, ttft)
				}
			}
		}
	})
}

// llama-server gives each connection one of a few HTTP workers, which
// holds it while it is idle: connections the generator opens ahead and
// leaves idle make every other client of the server wait. Beside an open
// loop of 40 requests a second, one-token probes on a connection of their
// own take milliseconds; when the start opened a second's requests ahead
// (and kept 16 spares whatever the rate), half the runs had a probe wait
// 0.5-1.4 s behind them, while the run's own requests did not.
func TestProbesDoNotWaitBehindIdleConnections(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		for run := range 3 {
			out, _ := bench(t, s.URL, 0, append([]string{"--request-rate", "40", "--num-prompts", "80", "--random-input-len", "32",
				"--random-output-len", "16", "--prompt-format", "ids", "--probe-request-rate", "5", "--seed", freshSeed()}, tf...)...)
			p := out.Probes
			if p == nil || p.Failed != 0 || len(p.Latencies) < 5 {
				t.Fatalf("run %d: probes %+v", run, p)
			}
			worst, slowest := slices.Max(p.Latencies), out.Result.Latency.TTFT.Max
			t.Logf("run %d: %d probes, the slowest %.1f ms; the run's slowest TTFT %.1f ms", run, len(p.Latencies), worst*1e3, slowest*1e3)
			// A server short of CPU (a loaded CI machine) delays probes and
			// requests alike; a probe behind idle connections waits where
			// the run's own requests, on those connections, do not.
			if worst > max(0.15, 2*slowest) {
				t.Errorf("run %d: a probe took %.0f ms, over twice the run's slowest TTFT (%.0f ms): it waited for a worker the generator's idle connections held", run, worst*1e3, slowest*1e3)
			}
		}
	})
}

// Chat prompts are fitted one by one to the server's count of the
// templated prompt: the server counts each as the length asked for, or a
// token off where the words cannot reach it exactly.
func TestChatInputLengthsCountTheTemplate(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		for _, b := range []string{"openai-chat", "openai-responses"} {
			out, recs := bench(t, s.URL, 0, append([]string{"--backend", b, "--max-concurrency", "4", "--num-prompts", "16",
				"--random-input-len", "96", "--random-output-len", "8", "--seed", "7"}, tf...)...)
			if out.Result.Counts.Failed != 0 || len(recs) != 16 {
				t.Fatalf("%s: %+v, %d records", b, out.Result.Counts, len(recs))
			}
			exact := 0
			for i := range recs {
				r := &recs[i]
				if r.TokenSource != record.SourceUsage || r.InputTokens < 95 || r.InputTokens > 97 {
					t.Errorf("%s: the server counted %d prompt tokens, asked for 96: %s", b, r.InputTokens, describe(r))
				}
				if r.InputTokens == 96 {
					exact++
				}
			}
			if exact < 12 {
				t.Errorf("%s: %d of 16 prompts count exactly the 96 tokens asked for", b, exact)
			}
		}
	})
}

// txt-slices cuts real text so that the server counts the length asked
// for in every prompt, chat template included, however unevenly the
// text's parts tokenize.
func TestTxtSlicesMatchTheServersCount(t *testing.T) {
	s := sharedServer(t, 4)
	for _, b := range []string{"openai", "openai-chat"} {
		out, recs := bench(t, s.URL, 0, "--backend", b, "--max-concurrency", "4", "--num-prompts", "24",
			"--dataset-name", "txt-slices", "--dataset-path", "../../workload/testdata/txt_slices_small.txt",
			"--random-input-len", "96", "--random-output-len", "4", "--seed", "5")
		if out.Result.Counts.Failed != 0 || len(recs) != 24 {
			t.Fatalf("%s: %+v, %d records", b, out.Result.Counts, len(recs))
		}
		for i := range recs {
			if r := &recs[i]; r.InputTokens < 94 || r.InputTokens > 98 {
				t.Errorf("%s: the server counted %d prompt tokens, asked for 96: %s", b, r.InputTokens, describe(r))
			}
		}
	}
}

// --ignore-eos gives exactly the output length asked for.
func TestIgnoreEOSIsExact(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		for _, b := range []string{"openai", "openai-chat", "openai-responses", "llamacpp"} {
			_, recs := bench(t, s.URL, 0, append([]string{"--backend", b, "--max-concurrency", "4", "--num-prompts", "12",
				"--random-input-len", "32", "--random-output-len", "48", "--ignore-eos", "--seed", "3"}, tf...)...)
			// llama.cpp's Responses API says "completed" at the limit too,
			// where vLLM's says "incomplete".
			finish := "length"
			if b == "openai-responses" {
				finish = "stop"
			}
			for i := range recs {
				if r := &recs[i]; !r.OK() || r.OutputTokens != 48 || r.Finish != finish {
					t.Errorf("%s: %s", b, describe(r))
				}
			}
		}
	})
}

// With --ignore-eos=false the tiny model ends some answers at its
// end-of-sequence token; the run counts them as the server's finish
// reasons say and notes them above the summary, and with the random
// dataset's default --ignore-eos none end early and nothing is said.
func TestAnswersEndedEarlyAreCountedAsTheServerSays(t *testing.T) {
	s := sharedServer(t, 4)
	args := []string{"--max-concurrency", "4", "--num-prompts", "40", "--random-input-len", "16", "--random-output-len", "48", "--seed", "5"}
	out, recs := bench(t, s.URL, 0, append(args, "--ignore-eos=false")...)
	var early, tokens int64
	for i := range recs {
		r := &recs[i]
		if r.OK() && r.Finish == "stop" && r.OutputTokens < 48 {
			early++
		}
		tokens += int64(r.OutputTokens)
	}
	tc := out.Tokens
	if early == 0 || tc.EndedEarly != early || tc.Limited != 40 || tc.LimitedAsked != 40*48 || tc.LimitedOutput != tokens {
		t.Fatalf("token check %+v; the records: %d ended early by their finish reason, %d output tokens", tc, early, tokens)
	}
	noted := slices.ContainsFunc(out.Findings, func(n string) bool {
		return strings.HasPrefix(n, fmt.Sprintf("Output lengths: %d of 40 answers ended before their max_tokens", early))
	})
	// The tiny model ends most of its 48-token answers early (28 of 40
	// with this seed), well over the tenth that the note needs.
	if early < 4 || !noted || slices.ContainsFunc(out.Warnings, func(w string) bool { return strings.Contains(w, "ended before") }) {
		t.Errorf("%d ended early: findings %q, warnings %q", early, out.Findings, out.Warnings)
	}
	out, _ = bench(t, s.URL, 0, args...)
	if out.Tokens.EndedEarly != 0 || slices.ContainsFunc(out.Findings, func(n string) bool { return strings.HasPrefix(n, "Output lengths:") }) {
		t.Errorf("with --ignore-eos: token check %+v, findings %q", out.Tokens, out.Findings)
	}
}

// A genai-bench traffic scenario's lengths reach the real server: with
// the --ignore-eos it turns on, llama.cpp's own usage counts every prompt
// and answer at a length inside the scenario's ranges, the answers spread
// over theirs.
func TestTrafficScenarioLengthsAsTheServerCounts(t *testing.T) {
	s := sharedServer(t, 4)
	_, recs := bench(t, s.URL, 0, "--max-concurrency", "4", "--num-prompts", "24", "--traffic-scenario", "U(16,48)/(8,16)", "--seed", freshSeed())
	lengths := map[int]bool{}
	for i := range recs {
		r := &recs[i]
		// The prompts go out as token ids: the server counts each as drawn.
		if !r.OK() || r.TokenSource != record.SourceUsage || r.OutputTokens < 8 || r.OutputTokens > 16 || r.Finish != "length" ||
			r.InputTokens < 16 || r.InputTokens > 48 {
			t.Errorf("%s", describe(r))
		}
		lengths[r.OutputTokens] = true
	}
	if len(recs) != 24 || len(lengths) < 4 {
		t.Errorf("%d records with %d distinct answer lengths, want 24 spread over 8 to 16", len(recs), len(lengths))
	}
}

// seedsUsed counts the seeds freshSeed has given out.
var seedsUsed atomic.Int64

// freshSeed returns a --seed that no other run of this process uses, far
// from the small literal seeds of the other tests, so that its random
// prompts are new to a shared server's prompt cache.
func freshSeed() string { return fmt.Sprint(1<<20 + seedsUsed.Add(1)) }

// A run repeated with the same seed sends the same prompts, which the
// server then serves from its prompt cache: the second run says so.
func TestRepeatedRunWarnsOfThePromptCache(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		// A seed no earlier run against the shared server used: the other
		// transport's prompts, and those of this test run before under
		// -count, are in its cache.
		seed := freshSeed()
		args := append([]string{"--max-concurrency", "2", "--num-prompts", "8", "--random-input-len", "256", "--random-output-len", "4",
			"--prompt-format", "ids", "--seed", seed}, tf...)
		first, _ := bench(t, s.URL, 0, args...)
		second, _ := bench(t, s.URL, 0, args...)
		has := func(o benchJSON) bool {
			for _, w := range o.Warnings {
				if strings.Contains(w, "served from the server's prompt cache") {
					return true
				}
			}
			return false
		}
		if has(first) {
			t.Errorf("a first run of new prompts warns: %q", first.Warnings)
		}
		if !has(second) || second.Result.PromptCache == nil || second.Result.PromptCache.HitRate < 0.5 {
			t.Errorf("the repeated run: warnings %q, cache %+v", second.Warnings, second.Result.PromptCache)
		}
	})
}

// One slot, 32 requests in flight: the client sees TTFT in seconds against
// a prefill of milliseconds, the server 31 requests deferred, and the
// status says it is queueing. Replies are 128 tokens long so that each
// takes about 0.1 s even on a fast machine, and the 31 ahead of a request
// make its TTFT seconds, as the queueing rule asks (32-token replies gave
// 0.9 s on a quiet machine, and the status read "at capacity").
func TestOverloadShowsTheQueue(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 1)
		out, _ := bench(t, s.URL, 0, append([]string{"--max-concurrency", "32", "--num-prompts", "64", "--random-input-len", "64",
			"--random-output-len", "128", "--ignore-eos", "--prompt-format", "ids", "--scrape-interval", "250ms", "--seed", "9"}, tf...)...)
		res := out.Result
		if res.Counts.Failed != 0 || res.ServerTimings == nil {
			t.Fatalf("counts %+v, server timings %+v", res.Counts, res.ServerTimings)
		}
		if ttft, prefill := res.Latency.TTFT.Median, res.ServerTimings.Prefill.Median; ttft < 10*prefill {
			t.Errorf("client TTFT p50 %.4f s against a server prefill of %.4f s: no queue seen by the client", ttft, prefill)
		}
		sv := out.Server
		if sv == nil || sv.Waiting == nil || sv.Running == nil {
			t.Fatalf("server view %+v", sv)
		}
		if sv.Waiting.Peak < 16 || sv.Running.Peak != 1 {
			t.Errorf("server: waiting peak %v, running peak %v", sv.Waiting.Peak, sv.Running.Peak)
		}
		if !strings.HasPrefix(sv.Status.Text, "queueing: ") || sv.Status.Level != "warn" {
			t.Errorf("status %s %q", sv.Status.Level, sv.Status.Text)
		}
	})
}

// watch --once reports the server's slots from /slots beside its busy and
// deferred counts.
func TestWatchOnceShowsTheSlots(t *testing.T) {
	s := sharedServer(t, 4)
	out, errOut, code := goodput(t.Context(), "watch", "--once", "--interval", "200ms", s.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{"(llama.cpp", "Slots (/slots):                          4, ", "Running:", "Waiting:", "Status:"} {
		if !strings.Contains(out, want) {
			t.Errorf("watch --once lacks %q:\n%s", want, out)
		}
	}
}

// sweep, then report and plan from what it wrote.
func TestSweepReportPlan(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		s := sharedServer(t, 4)
		dir := filepath.Join(t.TempDir(), "sweep")
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		out, errOut, code := goodput(ctx, append([]string{"sweep", "--base-url", s.URL, "--concurrency", "1,4", "--num-prompts", "16",
			"--random-input-len", "64", "--random-output-len", "16", "--prompt-format", "ids", "--slo", "ttft<=2s", "--result-dir", dir}, tf...)...)
		if code != 0 {
			t.Fatalf("sweep: exit %d\n%s\n%s", code, errOut, out)
		}
		if !strings.Contains(out, "failed") || strings.Contains(out, "Stopped early") {
			t.Errorf("sweep table:\n%s", out)
		}
		html := filepath.Join(t.TempDir(), "sweep.html")
		if out, errOut, code := goodput(ctx, "report", filepath.Join(dir, "sweep.json"), "-o", html); code != 0 {
			t.Fatalf("report: exit %d\n%s\n%s", code, errOut, out)
		}
		if st, err := os.Stat(html); err != nil || st.Size() < 1000 {
			t.Errorf("report: %v, %v", st, err)
		}
		out, errOut, code = goodput(ctx, "plan", "--from", filepath.Join(dir, "sweep.json"), "--peak-qps", "10")
		if code != 0 || !strings.Contains(out, "replica") {
			t.Fatalf("plan: exit %d\n%s\n%s", code, errOut, out)
		}
	})
}

// A server killed mid-run: bench stops within seconds, exits 1, and keeps
// every record it measured, with a trailer that says why.
func TestKilledServerStopsTheRun(t *testing.T) {
	eachTransport(t, func(t *testing.T, tf []string) {
		e := Need(t)
		s := Start(t, e, Options{Parallel: 4})
		dir := t.TempDir()
		type result struct {
			out, errOut string
			code        int
			at          time.Time
		}
		done := make(chan result, 1)
		go func() {
			out, errOut, code := goodput(t.Context(), append([]string{"bench", "--base-url", s.URL, "--max-concurrency", "16", "--num-prompts", "1000000",
				"--random-input-len", "64", "--random-output-len", "64", "--prompt-format", "ids", "--quiet",
				"--result-dir", dir, "--run-name", "run"}, tf...)...)
			done <- result{out, errOut, code, time.Now()}
		}()
		// Let it measure for a while, then crash the server.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if b, _ := os.ReadFile(filepath.Join(dir, "run.jsonl")); strings.Count(string(b), "\n") > 40 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no records after 30 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		s.Kill()
		killed := time.Now()
		var r result
		select {
		case r = <-done:
		case <-time.After(time.Minute):
			t.Fatal("bench still running a minute after the server died")
		}
		if took := r.at.Sub(killed); took > 10*time.Second {
			t.Errorf("bench took %v to stop after the server died", took)
		}
		if r.code != 1 || !strings.Contains(r.errOut, s.URL+" became unreachable") {
			t.Errorf("exit %d, stderr %q", r.code, r.errOut)
		}
		recs := readRecords(t, filepath.Join(dir, "run.jsonl"))
		ok := 0
		for i := range recs {
			if recs[i].OK() {
				ok++
			}
		}
		if ok < 40 || summaryValue(r.out, "Successful requests:") != fmt.Sprint(ok) {
			t.Errorf("%d successful records; summary:\n%s", ok, r.out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "run.jsonl"))
		if err != nil || !strings.Contains(string(b), `"reason":"server unreachable"`) {
			t.Errorf("the trailer does not say why the run stopped: %v", err)
		}
	})
}

// A server started with --api-key asks for the key on /metrics too: the
// run sends it there as well, so the server's own account is read, and
// watch takes the key as bench does. A wrong key is refused before the
// run, naming the key as the cause.
func TestAPIKeyOpensTheMetrics(t *testing.T) {
	e := Need(t)
	s := Start(t, e, Options{Parallel: 2, APIKey: "sekrit"})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, errOut, code := goodput(ctx, "bench", "--base-url", s.URL, "--api-key", "sekrit", "--max-concurrency", "2",
		"--num-prompts", "24", "--random-input-len", "32", "--random-output-len", "32", "--ignore-eos",
		"--scrape-interval", "200ms", "--result-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := summaryValue(out, "Server generation (tok/s):"); !strings.HasSuffix(got, "(768 tokens)") {
		t.Errorf("server generation %q, want the server's count of all 768 tokens:\n%s", got, out)
	}
	// A refused scrape says its status ("http status 401"); a bare "401"
	// may be a figure of the summary.
	if strings.Contains(out, "status 401") || strings.Contains(out, "Unauthorized") {
		t.Errorf("a scrape was refused:\n%s", out)
	}
	out, errOut, code = goodput(ctx, "watch", "--once", "--interval", "200ms", "--format", "json", s.URL)
	if code != 1 || !strings.Contains(out+errOut, "give it the API key") {
		t.Errorf("watch without the key: exit %d, %s%s", code, out, errOut)
	}
	if out, errOut, code = goodput(ctx, "watch", "--once", "--interval", "200ms", "--api-key", "sekrit", s.URL); code != 0 ||
		!strings.Contains(out, "Slots (/slots):                          2, ") {
		t.Errorf("watch with the key: exit %d, want its slots from the guarded /slots too\n%s%s", code, out, errOut)
	}
	_, errOut, code = goodput(ctx, "bench", "--base-url", s.URL, "--api-key", "wrong", "--num-prompts", "2", "--result-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "refused the API key sent") {
		t.Errorf("a wrong key: exit %d, %s", code, errOut)
	}
}

// summaryValue is the value of the summary line that starts with key.
func summaryValue(out, key string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// goodput sweep serve starts the real server once per setting, as a vLLM
// user's sweep would start vllm serve: with one slot, four concurrent
// requests queue, so the median TTFT is a multiple of that with four slots.
// The server's own log says each setting reached it, and every run
// delivers the exact output its command line asked for.
func TestSweepServeStartsTheRealServerPerSetting(t *testing.T) {
	e := Need(t)
	t.Setenv("GOODPUT_AS_MAIN", "1") // the sweep's benchmarks run this binary as goodput
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	params := filepath.Join(work, "serve.json")
	if err := os.WriteFile(params, []byte(`[{"parallel": 1}, {"parallel": 4}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := fmt.Sprintf("'%s' -m '%s' --host 127.0.0.1 --port %d --metrics -c 8192 --threads 1", e.Bin, e.Model, port)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	out, errOut, code := goodput(ctx, "sweep", "serve", "--serve-cmd", serve, "--serve-params", params, "--after-bench-cmd", "true",
		"--bench-cmd", "vllm bench serve --dataset-name random --random-input-len 64 --random-output-len 64 --num-prompts 8 --max-concurrency 4",
		"--num-runs", "1", "-o", work, "-e", "exp", "--server-ready-timeout", "60")
	if code != 0 {
		t.Fatalf("sweep serve: exit %d\n%s\n%s", code, errOut, out)
	}
	ttft := map[string]float64{}
	for _, n := range []string{"1", "4"} {
		b, err := os.ReadFile(filepath.Join(work, "exp", "SERVE--parallel="+n, "run=0.json"))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var res struct {
			Completed    int     `json:"completed"`
			OutputTokens int     `json:"total_output_tokens"`
			MedianTTFT   float64 `json:"median_ttft_ms"`
			Parallel     int     `json:"parallel"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if res.Completed != 8 || res.OutputTokens != 8*64 || strconv.Itoa(res.Parallel) != n {
			t.Errorf("--parallel %s: %+v, want 8 completed, 512 output tokens", n, res)
		}
		ttft[n] = res.MedianTTFT
		log, err := os.ReadFile(filepath.Join(work, "exp", "SERVE-parallel="+n+".log"))
		if err != nil || !strings.Contains(string(log), "n_slots = "+n) {
			t.Errorf("--parallel %s: the server's log does not say n_slots = %s (%v)", n, n, err)
		}
	}
	if ttft["1"] < 2*ttft["4"] {
		t.Errorf("median TTFT %.1f ms with one slot, %.1f ms with four: the setting did not reach the server", ttft["1"], ttft["4"])
	}
	t.Logf("median TTFT: %.1f ms (one slot), %.1f ms (four)", ttft["1"], ttft["4"])
}

// goodput sweep serve_sla against the real server: the highest concurrency
// whose p99 TTFT meets the bound, found on a server with two slots, is
// one the results on disk bear out: its runs meet the bound and the next
// concurrency's miss it.
func TestSweepServeSLAOnTheRealServer(t *testing.T) {
	e := Need(t)
	t.Setenv("GOODPUT_AS_MAIN", "1")
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	sla := filepath.Join(work, "sla.json")
	if err := os.WriteFile(sla, []byte(`[{"p99_ttft_ms": "<=150"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := fmt.Sprintf("'%s' -m '%s' --host 127.0.0.1 --port %d --parallel 2 -c 4096 --threads 1", e.Bin, e.Model, port)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	out, errOut, code := goodput(ctx, "sweep", "serve_sla", "--serve-cmd", serve, "--after-bench-cmd", "true",
		"--bench-cmd", "vllm bench serve --dataset-name random --random-input-len 32 --random-output-len 32 --num-prompts 12",
		"--sla-params", sla, "--sla-variable", "max_concurrency", "--num-runs", "1", "-o", work, "-e", "exp")
	if code != 0 {
		t.Fatalf("sweep serve_sla: exit %d\n%s\n%s", code, errOut, out)
	}
	var best, failing int
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] == "the" && f[2] == "p99_ttft_ms<=150.00" {
			best, _ = strconv.Atoi(f[3])
			failing, _ = strconv.Atoi(f[4])
		}
	}
	if best < 1 || failing != best+1 {
		t.Fatalf("highest concurrency %d, missed at %d\n%s", best, failing, out)
	}
	p99 := func(c int) float64 {
		b, err := os.ReadFile(filepath.Join(work, "exp", "max_concurrency="+strconv.Itoa(c), "run=0.json"))
		if errors.Is(err, os.ErrNotExist) {
			// A failure at 65,536 counts as one at the most requests it
			// had in flight, which may not have been measured itself.
			b, err = os.ReadFile(filepath.Join(work, "exp", "max_concurrency=65536", "run=0.json"))
		}
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			P99 float64 `json:"p99_ttft_ms"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r.P99
	}
	if at, above := p99(best), p99(failing); at > 150 || above <= 150 {
		t.Errorf("p99 TTFT %.1f ms at concurrency %d, %.1f ms at %d: the files do not bear the answer out", at, best, above, failing)
	}
	t.Logf("highest concurrency with p99 TTFT ≤ 150 ms on two slots: %d (p99 %.1f ms; %.1f ms at %d)", best, p99(best), p99(failing), failing)
}

// Answers asked for whole (--stream=false) are counted as the server
// counts them, each in one piece that ends with its response: TTFT is the
// end-to-end latency, no TPOT or ITL is made up, and each request's time
// holds the server's own account of it (prompt_ms + predicted_ms).
func TestWholeAnswersAsTheServerCounts(t *testing.T) {
	s := sharedServer(t, 4)
	for i, b := range []string{"openai", "openai-chat", "llamacpp"} {
		t.Run(b, func(t *testing.T) {
			args := []string{"--backend", b, "--stream=false", "--max-concurrency", "2", "--num-prompts", "8",
				"--random-input-len", "48", "--random-output-len", "24", "--seed", fmt.Sprint(200 + i)}
			if b != "openai-chat" {
				// Token ids, sent without a probe, so that the server
				// sees nothing but the measured requests.
				args = append(args, "--prompt-format", "ids")
			}
			p0, g0 := counters(t, s.URL)
			out, recs := bench(t, s.URL, 0, args...)
			p1, g1 := counters(t, s.URL)
			res := out.Result
			if res.Counts.Failed != 0 || len(recs) != 8 {
				t.Fatalf("counts %+v for %d records", res.Counts, len(recs))
			}
			in, gen, cached := sums(recs)
			if float64(gen) != g1-g0 || float64(in-cached) != p1-p0 {
				t.Errorf("records: %d output, %d input of which %d cached; the server counted %v generated, %v prompt tokens processed",
					gen, in, cached, g1-g0, p1-p0)
			}
			for i := range recs {
				r := &recs[i]
				if !r.Whole || len(r.Chunks) != 1 || r.Chunks[0].At != r.End || int(r.Chunks[0].Tokens) != r.OutputTokens || r.TokenSource != record.SourceUsage {
					t.Errorf("%s: whole %v, chunks %v, end %d", describe(r), r.Whole, r.Chunks, r.End)
				}
				if server := r.ServerPrefill + r.ServerDecode; r.ServerDecode <= 0 || r.End-r.Sent < server {
					t.Errorf("%s: %d ns from send to answer, the server says it worked %d ns (prefill %d, decode %d)",
						describe(r), r.End-r.Sent, server, r.ServerPrefill, r.ServerDecode)
				}
			}
			l := res.Latency
			if l.TPOT.Count != 0 || l.ITL.Count != 0 || l.TTFT.Count != 8 || l.TTFT.Mean != l.E2E.Mean {
				t.Errorf("latency: TPOT %d samples, ITL %d, TTFT %d (mean %v, e2e %v); want none, none, 8 equal to e2e",
					l.TPOT.Count, l.ITL.Count, l.TTFT.Count, l.TTFT.Mean, l.E2E.Mean)
			}
		})
	}
}

// Without --model, vLLM's result file is named for the model the server
// serves and says so in model_id, whichever API the requests spoke.
func TestVLLMFileNamesTheServersModel(t *testing.T) {
	s := sharedServer(t, 4)
	model := Need(t).Model // llama-server names its model by the path it loaded
	for _, b := range []string{"openai", "llamacpp"} {
		t.Run(b, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"bench", "--base-url", s.URL, "--backend", b, "--max-concurrency", "2", "--num-prompts", "4",
				"--random-input-len", "16", "--random-output-len", "4", "--prompt-format", "ids", "--quiet",
				"--save-result", "--result-dir", dir}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if out, errOut, code := goodput(ctx, args...); code != 0 {
				t.Fatalf("goodput %s: exit %d\n%s\n%s", strings.Join(args, " "), code, errOut, out)
			}
			prefix := b + "-infqps-concurrency2-" + filepath.Base(model) + "-"
			var found []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.IsDir() {
					t.Errorf("a directory %s in the result directory", e.Name())
				}
				if strings.HasPrefix(e.Name(), prefix) && strings.HasSuffix(e.Name(), ".json") {
					found = append(found, e.Name())
				}
			}
			if len(found) != 1 {
				t.Fatalf("vLLM result files %v of %d entries, want one named %s<date>.json", found, len(entries), prefix)
			}
			raw, err := os.ReadFile(filepath.Join(dir, found[0]))
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				ModelID   string `json:"model_id"`
				Completed int    `json:"completed"`
			}
			if err := json.Unmarshal(raw, &res); err != nil || res.ModelID != model || res.Completed != 4 {
				t.Errorf("model_id %q, completed %d (%v); want %q and 4", res.ModelID, res.Completed, err, model)
			}
		})
	}
}

// Answers that the server's context cuts short of their max_tokens (each
// of llama.cpp's slots has 2048 tokens here) end with finish reason
// "length" and fewer tokens than asked: the summary warns of it, with the
// server's own counts.
func TestAnswersCutByTheContextAreWarnedOf(t *testing.T) {
	s := sharedServer(t, 4)
	out, recs := bench(t, s.URL, 0, "--prompt-format", "ids", "--ignore-eos", "--max-concurrency", "4", "--num-prompts", "4",
		"--random-input-len", "2030", "--random-output-len", "32", "--seed", freshSeed())
	if out.Result.Counts.Failed != 0 || len(recs) != 4 {
		t.Fatalf("counts %+v for %d records", out.Result.Counts, len(recs))
	}
	_, gen, _ := sums(recs)
	for i := range recs {
		if r := &recs[i]; r.Finish != "length" || r.OutputTokens >= 32 || r.InputTokens+r.OutputTokens != 2048 {
			t.Errorf("%s: want an answer cut at the slot's 2048 tokens", describe(r))
		}
	}
	want := fmt.Sprintf("4 of 4 answers ended short of their max_tokens with finish reason \"length\" (%d of the 128 output tokens asked for came)", gen)
	if w := strings.Join(out.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings %q, want %q", w, want)
	}
}

// A chat run's shared prefix is --random-prefix-len tokens of text, as
// vLLM's is, before which the template's opening goes: the server's
// prompt cache holds at least that many tokens of every prompt after the
// first, and each prompt is still its length, template included.
func TestChatPrefixIsItsLengthOfText(t *testing.T) {
	s := sharedServer(t, 4)
	out, recs := bench(t, s.URL, 0, "--backend", "openai-chat", "--max-concurrency", "1", "--num-prompts", "5",
		"--random-input-len", "100", "--random-prefix-len", "200", "--random-output-len", "4", "--seed", freshSeed())
	if out.Result.Counts.Failed != 0 || len(recs) != 5 {
		t.Fatalf("counts %+v for %d records", out.Result.Counts, len(recs))
	}
	for i := range recs {
		r := &recs[i]
		if r.InputTokens < 299 || r.InputTokens > 301 {
			t.Errorf("%s: want 300 prompt tokens, template included", describe(r))
		}
		if r.Seq > 0 && (!r.CacheReported || r.CachedTokens < 200 || r.CachedTokens >= r.InputTokens) {
			t.Errorf("%s: %d tokens from the prompt cache, want the 200-token prefix and the template's opening", describe(r), r.CachedTokens)
		}
	}
}
