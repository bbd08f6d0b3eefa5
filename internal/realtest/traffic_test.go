package realtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// A trace replayed as chat messages: each prompt is made up for its row's
// length, and the server, which counts the text with its own vocabulary
// and adds its chat template, still sees about that length, since the
// text is sized by a fit of the server's count. Unfitted, the server saw
// 1.3–1.4 times the length of a long row (its vocabulary splits the
// built-in words finer) and the template's 28 tokens more on every row:
// 106 for a row of 60, 616 for one of 460.
// The records' prompt tokens also add up to the server's own counters.
func TestTraceOverChatHasTheTracesLengths(t *testing.T) {
	s := sharedServer(t, 4)
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	var b strings.Builder
	lengths := []int{60, 90, 120, 150, 180, 220, 260, 300, 340, 380, 420, 460}
	for i, n := range lengths {
		// Every other row shares its first block with the row before.
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 4, "hash_ids": [%d, %d]}`+"\n", 40*i, n, i/2, 1000+i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p0, _ := counters(t, s.URL)
	out, recs := bench(t, s.URL, 0, "--backend", "openai-chat", "--dataset-name", "trace", "--dataset-path", path,
		"--trace-block-size", "64", "--seed", freshSeed())
	p1, _ := counters(t, s.URL)
	if c := out.Result.Counts; c.Failed != 0 || len(recs) != len(lengths) {
		t.Fatalf("counts %+v for %d records", c, len(recs))
	}
	got, want := 0, 0
	for i := range recs {
		r := &recs[i]
		n := lengths[r.Seq]
		// A short row's made-up text counts as closely as its few words
		// allow (a text of 24 built-in words counts 1.1–1.6 tokens a
		// word); a long row's within a few percent.
		if r.InputTokens < n*75/100-2 || r.InputTokens > n*125/100+2 {
			t.Errorf("row %d of %d tokens: the server counted %d", r.Seq, n, r.InputTokens)
		}
		got += r.InputTokens
		want += n
	}
	t.Logf("the server counted %d prompt tokens for rows of %d", got, want)
	if got < want*94/100 || got > want*106/100 {
		t.Errorf("the server counted %d prompt tokens in all for rows of %d", got, want)
	}
	in, _, cached := sums(recs)
	if float64(in-cached) != p1-p0 {
		t.Errorf("records: %d input of which %d cached; the server processed %v", in, cached, p1-p0)
	}
}

// Sessions over chat: each turn sends the history and a made-up message of
// --random-input-len tokens as the server counts them. The first turn is
// the template and the message; every later turn carries the earlier
// ones, so it is longer by at least a message.
func TestSessionMessagesHaveTheirLengths(t *testing.T) {
	s := sharedServer(t, 4)
	const message = 64
	_, recs := bench(t, s.URL, 0, "--backend", "openai-chat", "--multi-turn", "--session-turns", "3", "--num-prompts", "6",
		"--max-concurrency", "3", "--random-input-len", fmt.Sprint(message), "--random-output-len", "8", "--ignore-eos", "--seed", freshSeed())
	if len(recs) != 18 {
		t.Fatalf("%d records, want 6 sessions × 3 turns", len(recs))
	}
	template := templateTokens(t, s.URL)
	turns := map[string][]*record.Record{}
	for i := range recs {
		r := &recs[i]
		if !r.OK() || r.Turn < 1 || r.Turn > 3 {
			t.Fatalf("%s, turn %d", describe(r), r.Turn)
		}
		turns[r.Session] = append(turns[r.Session], r)
	}
	first := 0
	for id, rs := range turns {
		if len(rs) != 3 {
			t.Fatalf("session %s has %d turns", id, len(rs))
		}
		byTurn := make([]*record.Record, 4)
		for _, r := range rs {
			byTurn[r.Turn] = r
		}
		first += byTurn[1].InputTokens - template
		for k := 2; k <= 3; k++ {
			if grew := byTurn[k].InputTokens - byTurn[k-1].InputTokens; grew < message*85/100 {
				t.Errorf("session %s turn %d: %d prompt tokens after %d: the history and a message of %d were due", id, k, byTurn[k].InputTokens, byTurn[k-1].InputTokens, message)
			}
		}
	}
	mean := float64(first) / float64(len(turns))
	t.Logf("first messages: %.1f tokens on average beside a template of %d", mean, template)
	if mean < message*0.9 || mean > message*1.1 {
		t.Errorf("first messages of %.1f tokens on average, asked for %d", mean, message)
	}
}

// templateTokens is how many tokens the server's chat template adds to an
// empty user message, with the BOS its completions add.
func templateTokens(t *testing.T, url string) int {
	t.Helper()
	var tpl struct{ Prompt string }
	post(t, url+"/apply-template", map[string]any{"messages": []map[string]string{{"role": "user", "content": ""}}}, &tpl)
	var tok struct{ Tokens []json.RawMessage }
	post(t, url+"/tokenize", map[string]any{"content": tpl.Prompt, "add_special": true, "parse_special": true}, &tok)
	if len(tok.Tokens) == 0 {
		t.Fatalf("%s: the template of an empty message has no tokens", url)
	}
	return len(tok.Tokens)
}

func post(t *testing.T, url string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
}
