package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/tracefiles"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/trace"
	"github.com/goodput-dev/goodput/workload"
)

// mooncake40 is the first 40 rows of Mooncake's conversation trace, with
// its licence and attribution beside it (../trace/testdata/README.md).
const mooncake40 = "../trace/testdata/mooncake_conversation_first40.jsonl"

// traceRun is a replay of path against url at speed-up speed, lengths
// scaled by scale.
func traceRun(t *testing.T, url, path string, speed, scale float64) Config {
	cfg := DefaultConfig()
	cfg.BaseURL = url
	cfg.Workload.Dataset, cfg.Workload.Path = workload.DatasetTrace, path
	cfg.Workload.Trace.LengthScale = scale
	cfg.Arrival.Replay = cfg.Workload.Arrivals()
	cfg.Arrival.Speedup = speed
	cfg.Arrival.NumPrompts = 0
	cfg.ResultDir = t.TempDir()
	cfg.RunName = "replay"
	cfg.ScrapeInterval = 100 * time.Millisecond
	return cfg
}

// traceRows reads every row of the trace at path.
func traceRows(t *testing.T, path string) []trace.Row {
	t.Helper()
	rows, err := trace.ReadAll(path, trace.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// scaled is a trace length scaled as the trace dataset scales it.
func scaled(n int, scale float64) int { return max(1, int(math.Round(float64(n)*scale))) }

// TestTraceReplayFollowsTheTrace replays 40 rows of Mooncake's trace 20
// times faster against the simulator: each request is scheduled at its
// row's timestamp over 20, exactly, and asks for its row's lengths, which
// the simulator's usage confirms; the trace's theoretical reuse over the
// rows is the one the trace package computes.
func TestTraceReplayFollowsTheTrace(t *testing.T) {
	const speed, scale = 20, 1.0 / 16
	cfg := traceRun(t, startSim(t, sim.Options{Seed: 1}), mooncake40, speed, scale)
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	rows := traceRows(t, mooncake40)
	reuse := trace.NewReuse(32) // 512 tokens scaled by 1/16
	var reusable, prompt int64
	for _, row := range rows {
		in := scaled(row.Input, scale)
		reusable += int64(reuse.Add(row.HashIDs, in))
		prompt += int64(in)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != len(rows) || len(rows) != 40 {
		t.Fatalf("%d records of %d rows, want 40", len(recs), len(rows))
	}
	for _, rec := range recs {
		row := rows[rec.Seq]
		want := time.Duration(math.Round(float64(row.At) / speed))
		if time.Duration(rec.Scheduled) != want {
			t.Errorf("request %d scheduled at %v, want its row's %v / %d = %v", rec.Seq, time.Duration(rec.Scheduled), row.At, speed, want)
		}
		if !rec.OK() || rec.InputTokens != scaled(row.Input, scale) || rec.OutputTokens != scaled(row.Output, scale) {
			t.Errorf("request %d: %s, %d/%d tokens; want %d/%d", rec.Seq, rec.Error, rec.InputTokens, rec.OutputTokens, scaled(row.Input, scale), scaled(row.Output, scale))
		}
		if rec.Sent < rec.Scheduled {
			t.Errorf("request %d sent before its time", rec.Seq)
		}
	}
	p := out.PrefixReuse
	if p == nil || p.ReusableTokens != reusable || p.PromptTokens != prompt || p.Requests != 40 {
		t.Fatalf("prefix reuse %+v, want %d of %d tokens of 40 requests", p, reusable, prompt)
	}
	if reusable == 0 {
		t.Fatal("the rows share no prefix: the check proves nothing")
	}
	notes := strings.Join(out.Notes, "\n")
	for _, want := range []string{"Load: open loop: replay of trace " + mooncake40 + " at 20× its speed", "output enforced with max_tokens and ignore_eos", "input lengths: exact (token ids)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestMooncakeReplayHitsTheTracesReuse replays Mooncake's conversation
// excerpt (2,000 rows, 11 minutes) 200 times faster with lengths scaled by
// 1/32, so that a 512-token block of the trace is one 16-token block of the
// simulator, against a simulator whose cache holds the whole working set
// (a 0.5B model on an H100): the server's prefix cache hit rate, hashed
// over its own blocks of the token ids it was sent, comes within 3 points
// of the trace's theoretical block hit rate over the same requests.
func TestMooncakeReplayHitsTheTracesReuse(t *testing.T) {
	path := tracefiles.Path(t, tracefiles.MooncakeConversation)
	if testing.Short() {
		t.Skip("a replay of several seconds")
	}
	model, err := sim.LookupModel("Qwen2.5-0.5B")
	if err != nil {
		t.Fatal(err)
	}
	opts := sim.Options{Seed: 1}
	opts.Profile.Model = model
	cfg := traceRun(t, startSim(t, opts), path, 200, 1.0/32)
	cfg.NoServerMetrics = false
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Counts.Completed != 2000 {
		t.Fatalf("counts %+v", out.Result.Counts)
	}
	if out.Server == nil || out.Server.PrefixCacheHitRate == nil || out.PrefixReuse == nil {
		t.Fatalf("no hit rates: server %+v, trace %+v", out.Server, out.PrefixReuse)
	}
	t.Logf("window %.2f s, run end %v, ttft p50 %.3f", out.Result.Window.Seconds, time.Duration(out.Run.End), out.Result.Latency.TTFT.Median)
	server, theory := *out.Server.PrefixCacheHitRate, out.PrefixReuse.HitRate
	t.Logf("server prefix cache hit rate %.4f, trace's theoretical %.4f", server, theory)
	if math.Abs(server-theory) > 0.03 || theory < 0.25 {
		t.Errorf("server hit rate %.4f, trace's theoretical %.4f: want them within 3 points (and the trace's near 29%%)", server, theory)
	}
}

// TestTraceReplayWholeBlocks replays 40 Mooncake rows at their full length:
// each 512-token block of the trace is 32 blocks of the simulator's 16
// tokens, and the simulator's cache, hashing its own blocks of the ids it
// was sent, finds what the trace's ids say it reuses: 19,968 of 506,280
// prompt tokens.
func TestTraceReplayWholeBlocks(t *testing.T) {
	model, err := sim.LookupModel("Qwen2.5-0.5B")
	if err != nil {
		t.Fatal(err)
	}
	// The rows' prompts run to 87,169 tokens, past the model's own 32,768.
	opts := sim.Options{Seed: 1, MaxModelLen: 131072}
	opts.Profile.Model = model
	cfg := traceRun(t, startSim(t, opts), mooncake40, 20, 1)
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	p := out.PrefixReuse
	if out.Result.Counts.Completed != 40 || p == nil || p.ReusableTokens != 19968 || p.PromptTokens != 506280 {
		t.Fatalf("%d requests completed, trace reuse %+v; want 40, and 19968 of 506280 tokens", out.Result.Counts.Completed, p)
	}
	if out.Server == nil || out.Server.PrefixCacheHitRate == nil {
		t.Fatalf("no server hit rate: %+v", out.Server)
	}
	if got := *out.Server.PrefixCacheHitRate; math.Abs(got-p.HitRate) > 0.005 {
		t.Errorf("server hit rate %.4f, trace's %.4f: want them within half a point", got, p.HitRate)
	}
}

// TestSystemPromptGroupsAgainstSimulator sends random prompts behind 4
// system prompts of 256 tokens (Zipf 1) to the simulator over chat: every
// record names its group, the result gives each group's TTFT, and the
// server's prefix cache serves the shared prompts.
func TestSystemPromptGroupsAgainstSimulator(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseURL = startSim(t, sim.Options{Seed: 1})
	cfg.Backend = "openai-chat"
	cfg.Arrival.RequestRate, cfg.Arrival.NumPrompts = 200, 80
	cfg.Workload.Random.InputLen, cfg.Workload.Random.OutputLen = 32, 4
	cfg.Workload.Request.IgnoreEOS = true
	cfg.Workload.SystemPrompts = workload.SystemPromptConfig{Count: 4, Len: 256, Zipf: 1}
	cfg.ResultDir, cfg.RunName = t.TempDir(), "groups"
	cfg.ScrapeInterval = 100 * time.Millisecond
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	byGroup := map[string]int64{}
	for _, r := range recs {
		g := r.Labels[record.LabelPrefixGroup]
		if !strings.HasPrefix(g, "system-") {
			t.Fatalf("record %d has group %q", r.Seq, g)
		}
		byGroup[g]++
	}
	gs := out.Result.PrefixGroups
	if len(gs) != len(byGroup) || len(gs) < 3 {
		t.Fatalf("result groups %+v, records %v", gs, byGroup)
	}
	for i, g := range gs {
		if g.Requests != byGroup[g.Group] || g.Completed != g.Requests || g.TTFT.Count != g.Requests {
			t.Errorf("group %s: %+v, %d records", g.Group, g, byGroup[g.Group])
		}
		if i > 0 && g.Requests > gs[i-1].Requests {
			t.Errorf("groups not busiest first: %+v", gs)
		}
	}
	// 80 prompts of about 290 tokens share 4 prompts of 256: most of
	// their tokens are cached after each prompt's first request.
	if out.Server == nil || out.Server.PrefixCacheHitRate == nil || *out.Server.PrefixCacheHitRate < 0.6 {
		t.Errorf("server prefix cache hit rate %v, want above 60%%", out.Server)
	}
}

// A replay sent as chat messages: the server counts each prompt with its
// chat template, and the prompts are sized by a fit of that count, so that
// the server's usage is each row's length, not the row's length and the
// template's. Against the simulator, whose tokenizer is the built-in one
// and whose template adds 18 tokens, the fit is exact, and every prompt
// within a token of its row (a row shorter than the template gets one
// word).
func TestTraceReplayOverChatFitsTheTemplate(t *testing.T) {
	const scale = 1.0 / 16
	cfg := traceRun(t, startSim(t, sim.Options{Seed: 1}), mooncake40, 20, scale)
	cfg.Backend = "openai-chat"
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	rows := traceRows(t, mooncake40)
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != 40 {
		t.Fatalf("%d records", len(recs))
	}
	for _, rec := range recs {
		want := scaled(rows[rec.Seq].Input, scale)
		if !rec.OK() || rec.InputTokens < want-1 || rec.InputTokens > want+1 {
			t.Errorf("request %d: %s, the server counted %d prompt tokens for a row of %d", rec.Seq, rec.Error, rec.InputTokens, want)
		}
	}
	notes := strings.Join(out.Notes, "\n")
	if want := "input lengths: the server's, chat template included (/tokenize with messages), made-up text sized by a fit of it (1.000 server tokens per built-in token, 18.0 more per prompt)"; !strings.Contains(notes, want) {
		t.Errorf("notes lack %q:\n%s", want, notes)
	}
}
