package session

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func synth(t *testing.T, edit func(wc *workload.Config, c *Config)) Source {
	t.Helper()
	wc := workload.DefaultConfig()
	wc.Random = workload.RandomConfig{InputLen: 100, OutputLen: 40, RangeRatio: 0.5}
	wc.Seed = 9
	c := DefaultConfig()
	c.MultiTurn, c.Turns, c.Think = true, Span{2, 5}, Think{Kind: ThinkUniform, Lo: time.Second, Hi: 3 * time.Second}
	if edit != nil {
		edit(&wc, &c)
	}
	src, err := New(wc, c)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestSyntheticSessions(t *testing.T) {
	src := synth(t, nil)
	if src.Len() != 0 || src.MaxCalls() != 5 || src.Kind() != KindSession {
		t.Fatalf("len %d, max %d, kind %v", src.Len(), src.MaxCalls(), src.Kind())
	}
	turns := map[int]bool{}
	for f := range int64(200) {
		fl := src.Flow(f)
		if err := fl.Validate(); err != nil {
			t.Fatalf("flow %d: %v", f, err)
		}
		turns[len(fl.Calls)] = true
		for k, c := range fl.Calls {
			if c.InputTokens < 50 || c.InputTokens > 150 || tokenizer.Count(c.Text) != c.InputTokens {
				t.Fatalf("flow %d turn %d: %d input tokens, text of %d; want equal, in [50, 150]", f, k+1, c.InputTokens, tokenizer.Count(c.Text))
			}
			if c.OutputTokens < 20 || c.OutputTokens > 60 {
				t.Fatalf("flow %d turn %d: output %d outside [20, 60]", f, k+1, c.OutputTokens)
			}
			if k > 0 && (c.After[0].Call != k-1 || c.After[0].Wait < time.Second || c.After[0].Wait > 3*time.Second) {
				t.Fatalf("flow %d turn %d waits %+v", f, k+1, c.After)
			}
		}
	}
	if len(turns) != 4 {
		t.Errorf("200 sessions of 2–5 turns had only the counts %v", turns)
	}
	// Deterministic: the same seed and flow number, the same session;
	// another seed, another session.
	if a, b := src.Flow(17), src.Flow(17); !reflect.DeepEqual(a, b) {
		t.Error("flow 17 differs between two calls")
	}
	other := synth(t, func(wc *workload.Config, c *Config) { wc.Seed = 10 })
	if reflect.DeepEqual(src.Flow(17), other.Flow(17)) {
		t.Error("seeds 9 and 10 gave the same flow 17")
	}
}

func TestSyntheticSharedSystemPromptAndCap(t *testing.T) {
	src := synth(t, func(wc *workload.Config, c *Config) { wc.Random.PrefixLen = 64; wc.Request.MaxTokens = 25 })
	a, b := src.Flow(0), src.Flow(1)
	if a.System == "" || a.System != b.System || tokenizer.Count(a.System) != 64 {
		t.Errorf("system prompts %q / %q, want one shared prompt of 64 tokens", a.System, b.System)
	}
	for _, c := range a.Calls {
		if c.OutputTokens > 25 {
			t.Errorf("--max-tokens 25, yet a turn asks for %d", c.OutputTokens)
		}
	}
	if s := src.String(); !strings.Contains(s, "system prompt of 64 tokens") || !strings.Contains(s, "2-5 turns") {
		t.Errorf("description %q", s)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(wc *workload.Config, c *Config)
		want string // "" when valid
	}{
		// synthetic sessions
		{"synthetic", func(wc *workload.Config, c *Config) { c.MultiTurn = true }, ""},
		// random without --multi-turn is not a session workload
		{"random alone", func(wc *workload.Config, c *Config) {}, "add --multi-turn"},
		// custom has no sessions
		{"custom", func(wc *workload.Config, c *Config) {
			c.MultiTurn, wc.Dataset, wc.Path = true, workload.DatasetCustom, "x"
		}, "--multi-turn takes"},
		// the file formats need their file
		{"sessions without path", func(wc *workload.Config, c *Config) { wc.Dataset = DatasetSessions }, "needs --dataset-path"},
		{"agent without path", func(wc *workload.Config, c *Config) { wc.Dataset = DatasetAgent }, "needs --dataset-path"},
		// turns, think times, the header
		{"zero turns", func(wc *workload.Config, c *Config) { c.MultiTurn, c.Turns = true, Span{0, 0} }, "--session-turns"},
		{"too many turns", func(wc *workload.Config, c *Config) { c.MultiTurn, c.Turns = true, Span{1, MaxCalls + 1} }, "--session-turns"},
		{"negative max turns", func(wc *workload.Config, c *Config) { c.MultiTurn, c.MaxTurns = true, -1 }, "--session-max-turns"},
		{"negative think", func(wc *workload.Config, c *Config) { c.MultiTurn, c.Think.Mean = true, -1 }, "--think-time"},
		{"bad header", func(wc *workload.Config, c *Config) { c.MultiTurn, c.Header = true, "x session" }, "--session-header"},
		{"no header", func(wc *workload.Config, c *Config) { c.MultiTurn, c.Header = true, "" }, ""},
		// the workload's own checks still apply
		{"bad lengths", func(wc *workload.Config, c *Config) { c.MultiTurn, wc.Random.OutputLen = true, 0 }, "--random-output-len"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wc, c := workload.DefaultConfig(), DefaultConfig()
			tt.edit(&wc, &c)
			err := Validate(wc, c)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// With a fit of the server's tokenizer, made-up messages and the shared
// system prompt are the words the server counts as their lengths, and
// everything else about the sessions stays as drawn without it.
func TestSessionsFitTheirTextToTheServer(t *testing.T) {
	fit := workload.Fit{PerToken: 1.25, Overhead: 7}
	plain := synth(t, func(wc *workload.Config, c *Config) { wc.Random.PrefixLen = 64 })
	fitted := synth(t, func(wc *workload.Config, c *Config) { wc.Random.PrefixLen = 64; wc.Fit = fit })
	for f := range int64(50) {
		a, b := plain.Flow(f), fitted.Flow(f)
		if len(a.Calls) != len(b.Calls) {
			t.Fatalf("flow %d: %d turns, %d with the fit", f, len(a.Calls), len(b.Calls))
		}
		if n := tokenizer.Count(b.System); n != fit.Words(64) {
			t.Errorf("flow %d: a system prompt of %d words, want %d", f, n, fit.Words(64))
		}
		for k := range a.Calls {
			ca, cb := a.Calls[k], b.Calls[k]
			if ca.InputTokens != cb.InputTokens || ca.OutputTokens != cb.OutputTokens || !reflect.DeepEqual(ca.After, cb.After) {
				t.Fatalf("flow %d turn %d: %+v without the fit, %+v with it", f, k+1, ca, cb)
			}
			if n := tokenizer.Count(cb.Text); n != fit.Words(cb.InputTokens) {
				t.Fatalf("flow %d turn %d: %d words for a message of %d tokens, want %d", f, k+1, n, cb.InputTokens, fit.Words(cb.InputTokens))
			}
		}
	}
	// A file's turns given by length alone are sized alike; its texts are
	// its own.
	wc := fileConfig(DatasetSessions, "testdata/sessions.jsonl")
	wc.Fit = fit
	src, err := New(wc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	chat := src.Flow(0)
	if c := chat.Calls[2]; tokenizer.Count(c.Text) != fit.Words(30) || c.InputTokens != 30 {
		t.Errorf("a turn of input_len 30: %d tokens asked, %d words, want %d", c.InputTokens, tokenizer.Count(c.Text), fit.Words(30))
	}
	if c := chat.Calls[0]; c.Text != "What is a KV cache?" {
		t.Errorf("a turn's own text became %q", c.Text)
	}
}
