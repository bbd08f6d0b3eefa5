package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/tokenizer"
)

const slicesText = "testdata/txt_slices_small.txt"

func txtSlicesConfig(path string, in, out, n int) Config {
	c := DefaultConfig()
	c.Dataset = DatasetTxtSlices
	c.Path = path
	c.Random.InputLen, c.Random.OutputLen = in, out
	c.Limit = n
	return c
}

func readSlicesText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(slicesText)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every prompt is a piece of the text itself, of about the length asked
// for on the built-in tokenizer, which then counts it as InputTokens; it
// asks for --random-output-len tokens.
func TestTxtSlicesAreSlicesOfTheText(t *testing.T) {
	text := readSlicesText(t)
	d, err := NewTxtSlices(txtSlicesConfig(slicesText, 40, 17, 200))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 200 {
		t.Fatalf("%d items, want 200", d.Len())
	}
	starts := map[string]bool{}
	for i := range d.Len() {
		it := d.Item(int64(i))
		if !strings.Contains(text+text, it.Prompt) {
			t.Fatalf("item %d is not a slice of the text: %q", i, it.Prompt)
		}
		if got := tokenizer.Count(it.Prompt); it.InputTokens != got {
			t.Fatalf("item %d: InputTokens %d, the built-in tokenizer counts %d", i, it.InputTokens, got)
		}
		// Cut ends can merge into or split from their neighbours when
		// the slice is counted again.
		if it.InputTokens < 38 || it.InputTokens > 42 {
			t.Fatalf("item %d: %d tokens, want 40 ± 2: %q", i, it.InputTokens, it.Prompt)
		}
		if it.OutputTokens != 17 || it.PromptTokenIDs != nil {
			t.Fatalf("item %d: output %d, ids %v; want 17 and none (the text goes as it is)", i, it.OutputTokens, it.PromptTokenIDs)
		}
		starts[it.Prompt[:10]] = true
	}
	if len(starts) < 50 {
		t.Errorf("only %d distinct starts among 200 slices", len(starts))
	}
	want := fmt.Sprintf("txt-slices %s (%d tokens of text): 200 items; input tokens ", slicesText, len(tokenizer.Encode(text)))
	if !strings.HasPrefix(d.String(), want) {
		t.Errorf("String() = %q, want it to start %q", d.String(), want)
	}
}

// A slice longer than the text goes on from its beginning, as vLLM's
// does.
func TestTxtSlicesCycleThroughAShortText(t *testing.T) {
	text := readSlicesText(t)
	total := len(tokenizer.Encode(text))
	d, err := NewTxtSlices(txtSlicesConfig(slicesText, 2*total+5, 4, 3))
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		p := d.Item(int64(i)).Prompt
		if !strings.Contains(text+text+text+text, p) || !strings.Contains(p, text) {
			t.Fatalf("item %d of %d bytes does not hold the whole text once", i, len(p))
		}
	}
}

// No slice cuts a character: every prompt is valid UTF-8 however its ends
// fall among the text's accents, kana and emoji.
func TestTxtSlicesKeepCharactersWhole(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		d, err := NewTxtSlices(txtSlicesConfig(slicesText, n, 1, 500))
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.Len() {
			p := d.Item(int64(i)).Prompt
			if p == "" || !utf8.ValidString(p) {
				t.Fatalf("length %d, item %d: %q is empty or not UTF-8", n, i, p)
			}
		}
	}
}

func TestTxtSlicesFollowTheSeed(t *testing.T) {
	c := txtSlicesConfig(slicesText, 30, 4, 20)
	a, _ := NewTxtSlices(c)
	b, _ := NewTxtSlices(c)
	c.Seed = 7
	other, err := NewTxtSlices(c)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := range 20 {
		if a.Item(int64(i)).Prompt != b.Item(int64(i)).Prompt {
			t.Fatalf("item %d differs between two builds of one seed", i)
		}
		if a.Item(int64(i)).Prompt == other.Item(int64(i)).Prompt {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 20 slices alike under seeds 0 and 7", same)
	}
}

// With the server's count, each slice is cut so that the server counts
// the length asked for, its per-prompt overhead included, and
// InputTokens is the server's count of it.
func TestTxtSlicesFitTheServersCount(t *testing.T) {
	var calls atomic.Int64
	// A server whose tokens are half the built-in ones, plus a template
	// of 5 tokens around every prompt.
	count := func(s string) (int, error) {
		calls.Add(1)
		return 5 + (tokenizer.Count(s)+1)/2, nil
	}
	c := txtSlicesConfig(slicesText, 64, 8, 100)
	c.Counter = count
	d, err := NewTxtSlices(c)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n > 90+6*100 {
		t.Errorf("%d counts, want at most 90 to calibrate and 6 a slice", n)
	}
	for i := range d.Len() {
		it := d.Item(int64(i))
		n, _ := count(it.Prompt)
		if it.InputTokens != n {
			t.Fatalf("item %d: InputTokens %d, the server counts %d", i, it.InputTokens, n)
		}
		if n < 63 || n > 65 {
			t.Fatalf("item %d: the server counts %d tokens, want 64 ± 1", i, n)
		}
	}
}

// A text whose parts count unlike each other (here kana and emoji count
// two tokens a character, words one) is still cut to the length asked for
// in every part, where one ratio for the whole text would miss by more
// than a tenth.
func TestTxtSlicesFitEachSliceOfAnUnevenText(t *testing.T) {
	count := func(s string) (int, error) {
		n := 3 + len(strings.Fields(s))
		for _, r := range s {
			if r >= 0x3000 {
				n += 2
			}
		}
		return n, nil
	}
	c := txtSlicesConfig(slicesText, 48, 8, 300)
	c.Counter = count
	d, err := NewTxtSlices(c)
	if err != nil {
		t.Fatal(err)
	}
	const target = 48
	for i := range d.Len() {
		p := d.Item(int64(i)).Prompt
		if n, _ := count(p); n < target-1 || n > target+1 {
			t.Fatalf("item %d: the server counts %d tokens, want %d ± 1: %q", i, n, target, p)
		}
	}
	// The same slices cut at one ratio miss by far more.
	s := slicer{ids: tokenizer.Encode(readSlicesText(t)), n: target}
	if err := s.calibrate(count, 0); err != nil {
		t.Fatal(err)
	}
	worst := 0
	for i := range 300 {
		start := rand.New(rand.NewPCG(rngSlices, uint64(i))).IntN(len(s.ids))
		n, _ := count(s.prompt(start, s.length()))
		worst = max(worst, abs(n-target))
	}
	if worst <= target/10 {
		t.Errorf("one ratio for the whole text missed by at most %d tokens: the text does not test the fit", worst)
	}
}

// A count that fails fails the dataset, naming the slice, without
// counting every other slice first; and a run of more prompts than
// 10,000 sends the 10,000 slices again in turn.
func TestTxtSlicesStopAtAFailedCountAndCapTheirNumber(t *testing.T) {
	var calls atomic.Int64
	c := txtSlicesConfig(slicesText, 32, 4, 5000)
	c.Counter = func(s string) (int, error) {
		if calls.Add(1) > 100 {
			return 0, errors.New("tokenize: connection refused")
		}
		return tokenizer.Count(s), nil
	}
	_, err := NewTxtSlices(c)
	if err == nil || !strings.Contains(err.Error(), "fitting slice") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %v, want the failed count of a slice", err)
	}
	if n := calls.Load(); n > 100+2*sliceCounters*sliceCounts {
		t.Errorf("%d counts after the first failure at 101: the others went on", n)
	}
	d, err := NewTxtSlices(txtSlicesConfig(slicesText, 8, 4, 25_000))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != maxGeneratedItems || d.Item(maxGeneratedItems+3).Prompt != d.Item(3).Prompt {
		t.Errorf("%d slices for 25,000 prompts, want %d sent in turn", d.Len(), maxGeneratedItems)
	}
}

func TestTxtSlicesReadAURL(t *testing.T) {
	text := readSlicesText(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/book.txt" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(text))
	}))
	defer srv.Close()
	c := txtSlicesConfig(srv.URL+"/book.txt", 20, 4, 5)
	if err := c.CheckPath(); err != nil {
		t.Fatalf("CheckPath of a URL: %v", err)
	}
	d, err := NewTxtSlices(c)
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Item(0).Prompt; !strings.Contains(text+text, p) {
		t.Fatalf("a slice of the fetched text is not of it: %q", p)
	}
	_, err = NewTxtSlices(txtSlicesConfig(srv.URL+"/gone.txt", 20, 4, 5))
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/gone.txt") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a missing URL: %v, want an error naming it and its 404", err)
	}
}

func TestTxtSlicesRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	latin1 := write("latin1.txt", "caf\xe9 au lait")
	blank := write("blank.txt", " \n\t\n")
	ratio := txtSlicesConfig(slicesText, 20, 4, 5)
	ratio.Random.RangeRatio = 0.5
	prefix := txtSlicesConfig(slicesText, 20, 4, 5)
	prefix.Random.PrefixLen = 8
	for _, tc := range []struct {
		name string
		c    Config
		want []string
	}{
		{"no path", txtSlicesConfig("", 20, 4, 5), []string{"--dataset-path"}},
		{"missing file", txtSlicesConfig(filepath.Join(dir, "none.txt"), 20, 4, 5), []string{"--dataset-path", "none.txt"}},
		{"not UTF-8", txtSlicesConfig(latin1, 20, 4, 5), []string{latin1, "not UTF-8", "byte 3"}},
		{"blank", txtSlicesConfig(blank, 20, 4, 5), []string{blank, "empty"}},
		{"zero input", txtSlicesConfig(slicesText, 0, 4, 5), []string{"--random-input-len"}},
		{"range ratio", ratio, []string{"--random-range-ratio", "txt-slices"}},
		{"prefix", prefix, []string{"--random-prefix-len", "txt-slices"}},
	} {
		_, err := New(tc.c)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", tc.name, err, w)
			}
		}
	}
}

func TestWholeRunes(t *testing.T) {
	kana := "港の" // 3 bytes each
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{kana[1:], "の"},
		{kana[:4], "港"},
		{kana[2:4], ""},
		{"a" + kana[:2], "a"},
		{"🌻"[1:] + "x" + "🌻"[:3], "x"},
	} {
		if got := wholeRunes(tc.in); got != tc.want {
			t.Errorf("wholeRunes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
