package pretrained

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

func TestRealModels(t *testing.T) {
	tests := []struct {
		name string
		open func(testing.TB) *Tokenizer
		text string
		want []int
	}{
		// GPT-2 adds no BOS.
		{"gpt2 json", func(t testing.TB) *Tokenizer { return testdataTokenizer(t, "gpt2") }, "Hello world", []int{15496, 995}},
		// Llama 2 adds <s> (1); "Hello world" is ▁Hello ▁world.
		{"llama-spm gguf", func(t testing.TB) *Tokenizer { return ggufTokenizer(t, "llama-spm") }, "Hello world", []int{1, 15043, 3186}},
		// Mistral's tokenizer.json: a Llama-style vocabulary of its own.
		{"mistral json", func(t testing.TB) *Tokenizer { return testdataTokenizer(t, "mistral") }, "Hello world", []int{1, 22557, 1526}},
		// Qwen's chat markup is special tokens; it has no BOS.
		{"qwen json", func(t testing.TB) *Tokenizer { return testdataTokenizer(t, "qwen2_5") }, "<|im_start|>user\nHi<|im_end|>", []int{151644, 872, 198, 13048, 151645}},
		// Phi-3's chat tokens swallow the whitespace after them (rstrip).
		{"phi-3 gguf", func(t testing.TB) *Tokenizer { return ggufTokenizer(t, "phi-3") }, "<|user|>\nHi<|end|>\n<|assistant|>", []int{1, 32010, 6324, 32007, 32001}},
		// DeepSeek adds its BOS; its user-defined tokens (ø is 100002)
		// are always cut out of the text.
		{"deepseek gguf", func(t testing.TB) *Tokenizer { return ggufTokenizer(t, "deepseek-llm") }, "ø", []int{100000, 100002}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.open(t)
			if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
			if n := tok.Count(tt.text); n != len(tt.want) {
				t.Errorf("Count = %d, want %d", n, len(tt.want))
			}
			if got := tok.AppendEncode([]int{-7}, tt.text); !slices.Equal(got, append([]int{-7}, tt.want...)) {
				t.Errorf("AppendEncode = %v", got)
			}
		})
	}
}

func TestBOSAndSpecialOptions(t *testing.T) {
	llama := ggufTokenizer(t, "llama-spm")
	if id, ok := llama.BOS(); !ok || id != 1 {
		t.Errorf("BOS = %d, %v; want 1", id, ok)
	}
	if id, ok := llama.EOS(); !ok || id != 2 {
		t.Errorf("EOS = %d, %v; want 2", id, ok)
	}
	cases := []struct {
		name string
		tok  *Tokenizer
		text string
		want []int
	}{
		// Without BOS.
		{"no bos", llama.WithBOS(false), "Hello world", []int{15043, 3186}},
		// With EOS as well.
		{"eos", llama.WithEOS(true), "Hello world", []int{1, 15043, 3186, 2}},
		// Special-token text is a special token by default…
		{"special text", llama, "<s>Hello", []int{1, 1, 15043}},
		// …or plain text on request.
		{"literal special", llama.WithSpecialTokens(false), "<s>Hello", []int{1, 529, 29879, 29958, 10994}},
		// Empty text is just the BOS, as in both references.
		{"empty", llama, "", []int{1}},
		{"empty without bos", llama.WithBOS(false), "", []int{}},
		// GPT-2 adds nothing by default, but knows its BOS when asked.
		{"gpt2 bos", testdataTokenizer(t, "gpt2").WithBOS(true), "Hi", []int{50256, 17250}},
	}
	for _, c := range cases {
		if got := c.tok.Encode(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", c.name, c.text, got, c.want)
		}
	}
	// Qwen has no BOS: asking for one adds nothing.
	qwen := testdataTokenizer(t, "qwen2_5")
	if _, ok := qwen.BOS(); ok {
		t.Error("Qwen reports a BOS")
	}
	if got := qwen.WithBOS(true).Encode("Hi"); !slices.Equal(got, []int{13048}) {
		t.Errorf("Qwen WithBOS(true) = %v", got)
	}
	if !llama.Special(1) || llama.Special(15043) || llama.Special(-1) || llama.Special(32000) {
		t.Error("Special: want <s> special, ▁Hello not, out-of-range ids not")
	}
	if d := llama.Describe(); d != "gguf, SentencePiece BPE, 32000 tokens" {
		t.Errorf("Describe = %q", d)
	}
	if n := qwen.VocabSize(); n != 151665 {
		t.Errorf("Qwen VocabSize = %d, want 151665 (151643 + 22 added)", n)
	}
}

func TestDecode(t *testing.T) {
	llama := ggufTokenizer(t, "llama-spm")
	gpt2 := testdataTokenizer(t, "gpt2")
	mistral := testdataTokenizer(t, "mistral")
	tests := []struct {
		name string
		tok  *Tokenizer
		ids  []int
		want string
	}{
		// SentencePiece's leading space is dropped…
		{"llama", llama, []int{15043, 3186}, "Hello world"},
		// …but not when a special token comes first, as in both references.
		{"llama bos", llama, []int{1, 15043, 3186}, "<s> Hello world"},
		// Byte tokens are bytes: 0xE2 0x9C 0x85 is ✅.
		{"llama bytes", llama, []int{29871, 229, 159, 136}, "✅"},
		// A character cut between tokens leaves its partial bytes.
		{"llama cut", llama, []int{229, 159}, "\xe2\x9c"},
		// Ids outside the vocabulary are skipped.
		{"llama invalid", llama, []int{-1, 15043, 99999}, "Hello"},
		{"gpt2", gpt2, []int{15496, 995}, "Hello world"},
		{"gpt2 special", gpt2, []int{50256, 15496}, "<|endoftext|>Hello"},
		{"mistral", mistral, []int{1, 22557, 1526, 2}, "<s> Hello world</s>"},
		{"empty", gpt2, nil, ""},
	}
	for _, tt := range tests {
		if got := tt.tok.Decode(tt.ids); got != tt.want {
			t.Errorf("%s: Decode(%v) = %q, want %q", tt.name, tt.ids, got, tt.want)
		}
	}
}

// TestRoundTrip checks Decode(Encode(text)) == text on the fragments of the
// generated texts, for the tokenizers where that holds: byte-level BPE
// always, SentencePiece except for "▁" itself (it decodes to a space).
// DeepSeek's vocabulary writes bytes 0x80–0xFF as user-defined tokens,
// which decode, as in llama.cpp, to their characters ("\xff" becomes "ÿ"):
// it round-trips valid UTF-8 only.
func TestRoundTrip(t *testing.T) {
	toks := map[string]*Tokenizer{
		"gpt2":      testdataTokenizer(t, "gpt2"),
		"mistral":   testdataTokenizer(t, "mistral").WithSpecialTokens(false),
		"llama-spm": ggufTokenizer(t, "llama-spm").WithSpecialTokens(false),
		"deepseek":  ggufTokenizer(t, "deepseek-llm"),
	}
	texts := append(slices.Clone(fragments), " leading", "trailing ", "  two", "\n\nparagraph\n", strings.Repeat("x", 5000))
	for name, tok := range toks {
		for _, text := range texts {
			if name == "deepseek" && !utf8.ValidString(text) {
				continue
			}
			if got := tok.Decode(tok.WithBOS(false).Encode(text)); got != text {
				t.Errorf("%s: Decode(Encode(%q)) = %q", name, text, got)
			}
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	tok := testdataTokenizer(t, "qwen2_5")
	text := randomTextSeeded(1, 300)
	want := tok.Encode(text)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got := tok.Encode(text); !slices.Equal(got, want) {
					errs <- fmt.Sprintf("goroutine %d: a different encoding", g)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// tinySPM builds a small SentencePiece GGUF vocabulary: the tokens
// <unk> <s> </s>, then pieces with scores.
func tinySPM(t *testing.T, pieces map[string]float32, extra func(f *gguf.File)) *Tokenizer {
	t.Helper()
	tokens := []string{"<unk>", "<s>", "</s>"}
	scores := []float32{0, 0, 0}
	types := []int32{ggufUnknown, ggufControl, ggufControl}
	names := make([]string, 0, len(pieces))
	for p := range pieces {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		tokens, scores, types = append(tokens, p), append(scores, pieces[p]), append(types, ggufNormal)
	}
	f := &gguf.File{}
	f.Add("general.name", gguf.Scalar("tiny"))
	f.Add("tokenizer.ggml.model", gguf.Scalar("llama"))
	f.Add("tokenizer.ggml.tokens", gguf.ArrayOf(tokens))
	f.Add("tokenizer.ggml.scores", gguf.ArrayOf(scores))
	f.Add("tokenizer.ggml.token_type", gguf.ArrayOf(types))
	if extra != nil {
		extra(f)
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	tok, err := ReadGGUF(&buf, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return tok.WithBOS(false)
}

// pieceTexts renders ids as their stored pieces, so that expectations read
// as text.
func pieceTexts(tok *Tokenizer, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tok.m.dec.text[id]
	}
	return out
}

func TestSentencePieceMerges(t *testing.T) {
	bytesToo := func(f *gguf.File) {
		v, _ := f.Get("tokenizer.ggml.tokens")
		tokens := append(slices.Clone(v.Any().([]string)), "<0xC3>", "<0xA9>")
		s, _ := f.Get("tokenizer.ggml.scores")
		ty, _ := f.Get("tokenizer.ggml.token_type")
		f.Add("tokenizer.ggml.tokens", gguf.ArrayOf(tokens))
		f.Add("tokenizer.ggml.scores", gguf.ArrayOf(append(slices.Clone(s.Any().([]float32)), 0, 0)))
		f.Add("tokenizer.ggml.token_type", gguf.ArrayOf(append(slices.Clone(ty.Any().([]int32)), ggufByte, ggufByte)))
	}
	tests := []struct {
		name   string
		pieces map[string]float32
		extra  func(*gguf.File)
		text   string
		want   []string
	}{
		// The higher-scoring pair merges first: ab beats bc.
		{"score order", map[string]float32{"▁": -1, "a": -2, "b": -2, "c": -2, "ab": -3, "bc": -4}, nil, "abc", []string{" ", "ab", "c"}},
		{"score order reversed", map[string]float32{"▁": -1, "a": -2, "b": -2, "c": -2, "ab": -4, "bc": -3}, nil, "abc", []string{" ", "a", "bc"}},
		// Equal scores: the leftmost pair first.
		{"leftmost tie", map[string]float32{"▁": -1, "a": -2, "aa": -3}, nil, "aaa", []string{" ", "aa", "a"}},
		// Merges continue from merged pieces.
		{"chain", map[string]float32{"▁": -1, "a": -2, "b": -2, "▁a": -3, "▁ab": -4}, nil, "ab", []string{" ab"}},
		// A character with no piece falls back to its bytes' tokens.
		{"byte fallback", map[string]float32{"▁": -1}, bytesToo, "é", []string{" ", "\xc3", "\xa9"}},
		// Without byte tokens, each byte is the unknown token.
		{"unknown", map[string]float32{"▁": -1}, nil, "é", []string{" ", "<unk>", "<unk>"}},
		// add_space_prefix off: no leading ▁.
		{"no prefix", map[string]float32{"▁": -1, "a": -2}, func(f *gguf.File) { f.Add("tokenizer.ggml.add_space_prefix", gguf.Scalar(false)) }, "a a", []string{"a", " ", "a"}},
	}
	for _, tt := range tests {
		tok := tinySPM(t, tt.pieces, tt.extra)
		if got := pieceTexts(tok, tok.Encode(tt.text)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Encode(%q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

// jsonVocab builds a small tokenizer.json around a BPE model.
func jsonVocab(t *testing.T, model, extra string) *Tokenizer {
	t.Helper()
	doc := `{"added_tokens": [], "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null, "model": ` + model + extra + `}`
	tok, err := ReadJSON(strings.NewReader(doc), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBPEMerges(t *testing.T) {
	tests := []struct {
		name  string
		model string
		text  string
		want  []string
	}{
		// The pair listed first merges first.
		{"rank order", `{"type": "BPE", "vocab": {"a":0,"b":1,"c":2,"ab":3,"bc":4}, "merges": ["b c", "a b"]}`, "abc", []string{"a", "bc"}},
		{"rank order reversed", `{"type": "BPE", "vocab": {"a":0,"b":1,"c":2,"ab":3,"bc":4}, "merges": [["a","b"], ["b","c"]]}`, "abc", []string{"ab", "c"}},
		// Unknown characters become the unknown token, fused when asked.
		{"unk", `{"type": "BPE", "vocab": {"<unk>":0,"a":1}, "merges": [], "unk_token": "<unk>"}`, "xya", []string{"<unk>", "<unk>", "a"}},
		{"fuse unk", `{"type": "BPE", "vocab": {"<unk>":0,"a":1}, "merges": [], "unk_token": "<unk>", "fuse_unk": true}`, "xya", []string{"<unk>", "a"}},
		// Without an unknown token they are dropped, as Hugging Face does.
		{"drop", `{"type": "BPE", "vocab": {"a":0}, "merges": []}`, "xa", []string{"a"}},
		// A word that is a token skips the merges (Llama 3's ignore_merges).
		{"ignore merges", `{"type": "BPE", "vocab": {"a":0,"b":1,"c":2,"bc":3,"abc":4}, "merges": ["b c"], "ignore_merges": true}`, "abc", []string{"abc"}},
		{"merges", `{"type": "BPE", "vocab": {"a":0,"b":1,"c":2,"bc":3,"abc":4}, "merges": ["b c"]}`, "abc", []string{"a", "bc"}},
		// WordPiece-style continuation prefixes.
		{"prefix", `{"type": "BPE", "vocab": {"a":0,"##b":1,"ab":2}, "merges": ["a ##b"], "continuing_subword_prefix": "##"}`, "ab", []string{"ab"}},
	}
	for _, tt := range tests {
		tok := jsonVocab(t, tt.model, "")
		var got []string
		for _, id := range tok.Encode(tt.text) {
			got = append(got, tok.m.dec.text[id])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Encode(%q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestAddedTokenFlags(t *testing.T) {
	const model = `{"type": "BPE", "vocab": {"a":0,"b":1," ":2,"<x>":3,"<y>":4,"<z>":5,"<w>":6,"<":7,"z":8,">":9,"x":10}, "merges": []}`
	tok := jsonVocab(t, model, `, "added_tokens": [
		{"id": 3, "content": "<x>", "special": true, "lstrip": true},
		{"id": 4, "content": "<y>", "special": true, "rstrip": true},
		{"id": 5, "content": "<z>", "special": false, "single_word": true},
		{"id": 6, "content": "<w>", "special": false}]`)
	tests := []struct {
		tok  *Tokenizer
		text string
		want []int
	}{
		// lstrip absorbs the spaces before the token.
		{tok, "a  <x>b", []int{0, 3, 1}},
		// rstrip absorbs the spaces after it.
		{tok, "a<y>  b", []int{0, 4, 1}},
		// A single-word token does not match inside a word…
		{tok, "a<z>b", []int{0, 7, 8, 9, 1}},
		// …but does between spaces.
		{tok, "a <z> b", []int{0, 2, 5, 2, 1}},
		// With special parsing off, special tokens are text, and added
		// tokens that are not special are still tokens.
		{tok.WithSpecialTokens(false), "<x><w>", []int{7, 10, 9, 6}},
	}
	for _, tt := range tests {
		if got := tt.tok.Encode(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func randomTextSeeded(seed uint64, n int) string {
	return randomText(rand.New(rand.NewPCG(seed, seed)), n)
}
