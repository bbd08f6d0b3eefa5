package session

import (
	"os"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

func shareGPT(t *testing.T, edit func(wc *workload.Config, c *Config)) Source {
	t.Helper()
	wc := fileConfig(workload.DatasetShareGPT, "testdata/sharegpt_multi.json")
	c := DefaultConfig()
	c.MultiTurn = true
	if edit != nil {
		edit(&wc, &c)
	}
	src, err := New(wc, c)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestShareGPTEveryTurn(t *testing.T) {
	src := shareGPT(t, nil)
	// conv-c opens with the model; conv-d's "Hi" is one token, below the
	// minimum of 4.
	if src.Len() != 2 {
		t.Fatalf("%d sessions, want 2: %s", src.Len(), src.String())
	}
	a := src.Flow(0)
	if a.ID != "conv-a" || a.System != "You answer questions about cooking." || len(a.Calls) != 3 {
		t.Fatalf("conv-a: %+v", a)
	}
	wantText := []string{"How long should I boil an egg for a soft yolk?", "And for a hard yolk?", "Thanks!"}
	wantOut := []int{
		tokenizer.Count("About six minutes in water that is already boiling, then cool it in cold water so it stops cooking."),
		tokenizer.Count("Ten to twelve minutes."),
		tokenizer.Count("You are welcome."),
	}
	for k, c := range a.Calls {
		if c.Text != wantText[k] || c.OutputTokens != wantOut[k] {
			t.Errorf("turn %d: %q asking %d tokens; want %q asking %d", k+1, c.Text, c.OutputTokens, wantText[k], wantOut[k])
		}
		if (k == 0) != (len(c.After) == 0) {
			t.Errorf("turn %d waits for %v", k+1, c.After)
		}
	}
	// Two gpt turns in a row end conv-b after its first turn.
	if b := src.Flow(1); b.ID != "conv-b" || len(b.Calls) != 1 {
		t.Errorf("conv-b: %d turns, want 1", len(b.Calls))
	}
	for _, want := range []string{"2 sessions of 4 entries", "1 with a first prompt below --sharegpt-min-input-len", "1 without a human turn"} {
		if !strings.Contains(src.String(), want) {
			t.Errorf("description %q lacks %q", src.String(), want)
		}
	}
}

func TestShareGPTContextBudgetCutsSessions(t *testing.T) {
	// conv-a's first turn: system 7 + prompt 12 + reply 22 tokens; the
	// second turn would bring the context past 45.
	first := tokenizer.Count("You answer questions about cooking.") + tokenizer.Count("How long should I boil an egg for a soft yolk?") +
		tokenizer.Count("About six minutes in water that is already boiling, then cool it in cold water so it stops cooking.")
	src := shareGPT(t, func(wc *workload.Config, c *Config) { wc.ShareGPT.MaxTotalLen = first + 2 })
	if n := len(src.Flow(0).Calls); n != 1 {
		t.Errorf("conv-a keeps %d turns within a budget of %d tokens, want 1", n, first+2)
	}
	src = shareGPT(t, func(wc *workload.Config, c *Config) { c.MaxTurns = 2 })
	if n := len(src.Flow(0).Calls); n != 2 {
		t.Errorf("--session-max-turns 2 keeps %d turns", n)
	}
}

func TestShareGPTRefusesWhatIsNotAnArray(t *testing.T) {
	for _, body := range []string{"", "{}", `[{"conversations": 5}]`, `[{"conversations": []}`, `[] []`} {
		path := t.TempDir() + "/bad.json"
		writeFile(t, path, body)
		wc := fileConfig(workload.DatasetShareGPT, path)
		c := DefaultConfig()
		c.MultiTurn = true
		if _, err := New(wc, c); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: err = %v, want one naming the file", body, err)
		}
	}
}

// A conversation that opens with the model's greeting starts at the
// user's first turn rather than being skipped.
func TestShareGPTSessionAfterAGreeting(t *testing.T) {
	path := t.TempDir() + "/greeting.json"
	body := `[{"id": "g", "conversations": [{"from": "gpt", "value": "Hello! How can I help you today?"},
		{"from": "human", "value": "Which spices go well with roasted carrots?"}, {"from": "gpt", "value": "Cumin, coriander and a little honey."}]}]`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.MultiTurn = true
	src, err := New(fileConfig(workload.DatasetShareGPT, path), c)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 1 || len(src.Flow(0).Calls) != 1 || src.Flow(0).Calls[0].Text != "Which spices go well with roasted carrots?" {
		t.Errorf("%d sessions (%s), want the one from its human turn", src.Len(), src.String())
	}
}
