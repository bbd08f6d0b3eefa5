package pretrained

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fragments are the material of generated texts: words, runs of spaces and
// line breaks, digits, punctuation, contractions, scripts other than Latin,
// emoji, special-token text, and a little invalid UTF-8.
var fragments = []string{
	"the", "The", "serving", " latency", "tokens", "Hello", "world", "GPU", "KV-cache",
	" ", "  ", "   ", "\n", "\n\n", "\t", " \n ", "\r\n", "\u00a0", "\u3000",
	"0", "42", "2024", "3.14159", "1,000,000", "٣٤",
	".", ",", "!", "?", "...", "—", "(", ")", "\"", "'", "`", "#", "$", "%", "&&", "->", "{}", "[]", "<", ">", "<<", "/",
	"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "n't",
	"é", "Äpfel", "naïve", "Привет", "мир", "日本語", "中文", "한국어", "Việt", "ελληνικά", "עברית", "العربية", "हिन्दी", "ไทย",
	"🚀", "😶\u200d🌫️", "✅", "🦙",
	"<s>", "</s>", "<unk>", "<|endoftext|>", "<|im_start|>",
	"\xff", "\xc3", "\xe2\x96",
}

// randomText joins n random fragments.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(fragments[r.IntN(len(fragments))])
	}
	return b.String()
}

// TestJSONMatchesGGUF encodes thousands of generated texts with the
// tokenizer.json and the GGUF vocabulary of the same model: every id must
// agree, special tokens in the text included.
func TestJSONMatchesGGUF(t *testing.T) {
	dir := vocabDir(t)
	spm := filepath.Join(dir, "ggml-vocab-llama-spm.gguf")
	converted, err := ReadJSON(bytes.NewReader(spmJSON(t, spm)), "llama-spm")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		json, gguf *Tokenizer
	}{
		{"gpt-2", testdataTokenizer(t, "gpt2"), ggufTokenizer(t, "gpt-2")},
		{"llama-spm", converted, ggufTokenizer(t, "llama-spm")},
		// Qwen 2.5's GGUF as llama.cpp's converter writes it (the texts
		// are in NFC, so Qwen's NFC normalizer, which llama.cpp does
		// not apply, changes nothing).
		{"qwen2", testdataTokenizer(t, "qwen2_5"), bpeGGUF(t, readTestdataJSON(t, "qwen2_5"), "qwen2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			for i := range 3000 {
				text := randomText(r, 1+r.IntN(40))
				for _, special := range []bool{true, false} {
					a := tc.json.WithSpecialTokens(special).Encode(text)
					b := tc.gguf.WithSpecialTokens(special).Encode(text)
					if !slices.Equal(a, b) {
						t.Fatalf("text %d %q (special %v):\ntokenizer.json %v\n          gguf %v", i, text, special, a, b)
					}
				}
			}
		})
	}
}

// TestSpaceMarkCuts checks that cutting SentencePiece text at its space
// marks (spaceMarkNext, added at load) gives the ids of merging each
// segment whole, as llama.cpp and Hugging Face do.
func TestSpaceMarkCuts(t *testing.T) {
	for _, tok := range []*Tokenizer{ggufTokenizer(t, "llama-spm"), testdataTokenizer(t, "mistral")} {
		if len(tok.m.pre) != 1 {
			t.Fatalf("%s: %d pre-tokenization steps, want the space-mark cut", tok.Name(), len(tok.m.pre))
		}
		whole := *tok.m
		whole.pre = nil
		uncut := newTokenizer(&whole)
		r := rand.New(rand.NewPCG(13, 17))
		for i := range 2000 {
			text := randomText(r, 1+r.IntN(60))
			if a, b := tok.Encode(text), uncut.Encode(text); !slices.Equal(a, b) {
				t.Fatalf("%s text %d %q:\n cut   %v\n whole %v", tok.Name(), i, text, a, b)
			}
		}
	}
}

// TestMetaspaceForm checks the newer form of Llama-style tokenizer.json
// files (transformers' legacy=False): no normalizer, a Metaspace
// pre-tokenizer that prepends "▁" to the first piece only and does not
// split, a Metaspace decoder. On text that does not start with a space or
// hold special tokens, it gives the ids of the Prepend/Replace form.
func TestMetaspaceForm(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(readTestdataJSON(t, "mistral"), &doc); err != nil {
		t.Fatal(err)
	}
	doc["normalizer"] = nil
	doc["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false}
	doc["decoder"] = map[string]any{"type": "Sequence", "decoders": []any{
		map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false},
		map[string]any{"type": "ByteFallback"}, map[string]any{"type": "Fuse"},
	}}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ReadJSON(bytes.NewReader(data), "mistral-metaspace")
	if err != nil {
		t.Fatal(err)
	}
	meta = meta.WithSpecialTokens(false)
	legacy := testdataTokenizer(t, "mistral").WithSpecialTokens(false)
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 2000 {
		text := strings.TrimLeft(randomText(r, 1+r.IntN(40)), " ▁\u00a0\u3000\t\n\r")
		a, b := meta.Encode(text), legacy.Encode(text)
		if !slices.Equal(a, b) {
			t.Fatalf("text %d %q:\n metaspace %v\n    legacy %v", i, text, a, b)
		}
		if got := meta.Decode(a[1:]); !strings.Contains(text, "▁") && got != text {
			t.Fatalf("text %d: Decode = %q, want %q", i, got, text)
		}
	}
	// The difference: a leading space is the prepended "▁" here.
	if a, b := meta.Encode(" Hello"), legacy.Encode(" Hello"); slices.Equal(a, b) {
		t.Errorf("a leading space: both forms give %v; the Metaspace form should not add a second ▁", a)
	}
}
