package pretrained

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

// tinyJSONs are small tokenizer.json documents covering each supported
// component, the seeds of FuzzReadJSON.
var tinyJSONs = []string{
	`{"model": {"type": "BPE", "vocab": {"a":0,"b":1,"ab":2}, "merges": ["a b"]}}`,
	`{"added_tokens": [{"id": 3, "content": "<s>", "special": true, "rstrip": true}],
	  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
	  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [3], "tokens": ["<s>"]}}},
	  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
	  "model": {"type": "BPE", "vocab": {"▁":0,"a":1,"▁a":2,"<s>":3,"<0x62>":4}, "merges": [["▁","a"]], "byte_fallback": true, "fuse_unk": true}}`,
	`{"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
	  "decoder": {"type": "ByteLevel"},
	  "model": {"type": "BPE", "vocab": {"h":0,"i":1,"Ġ":2,"hi":3,"Ġhi":4}, "merges": ["h i", "Ġ hi"]}}`,
	`{"normalizer": {"type": "NFC"},
	  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "Digits", "individual_digits": true}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
	  "post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel"}, {"type": "RobertaProcessing", "cls": ["1", 0], "sep": ["2", 1]}]},
	  "model": {"type": "BPE", "vocab": {"1":0,"2":1,"3":2,"Ġ":3}, "merges": [], "ignore_merges": true}}`,
	`{"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
	  "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"},
	  "model": {"type": "BPE", "vocab": {"▁":0,"x":1,"▁x":2,"##y":3}, "merges": ["▁ x"], "unk_token": "▁", "continuing_subword_prefix": "##"}}`,
}

// FuzzReadJSON feeds arbitrary documents to the tokenizer.json loader: it
// must never panic or hang, and what it accepts must encode and decode any
// text with ids inside the vocabulary.
func FuzzReadJSON(f *testing.F) {
	for _, s := range tinyJSONs {
		f.Add([]byte(s), "hi ab 123 <s>")
	}
	f.Fuzz(func(t *testing.T, doc []byte, text string) {
		tok, err := ReadJSON(bytes.NewReader(doc), "fuzz")
		if err != nil {
			return
		}
		for _, tk := range []*Tokenizer{tok, tok.WithSpecialTokens(false).WithEOS(true)} {
			ids := tk.Encode(text)
			for _, id := range ids {
				if id < 0 || id >= tk.VocabSize() {
					t.Fatalf("Encode(%q) gave id %d outside [0, %d)", text, id, tk.VocabSize())
				}
			}
			if n := tk.Count(text); n != len(ids) {
				t.Fatalf("Count = %d, len(Encode) = %d", n, len(ids))
			}
			tk.Decode(append(ids, -1, tk.VocabSize()))
		}
	})
}

// FuzzReadGGUF feeds arbitrary bytes to the GGUF vocabulary loader.
func FuzzReadGGUF(f *testing.F) {
	for _, edit := range []func(*gguf.File){
		nil,
		func(g *gguf.File) { g.Add("tokenizer.ggml.model", gguf.Scalar("llama")) },
		func(g *gguf.File) { g.Add("tokenizer.ggml.pre", gguf.Scalar("deepseek-llm")) },
	} {
		path := filepath.Join(f.TempDir(), "seed.gguf")
		tinyGGUF(f, path, edit)
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "hi hi <|eot|>")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		tok, err := ReadGGUF(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		ids := tok.Encode(text)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d outside [0, %d)", text, id, tok.VocabSize())
			}
		}
		tok.Decode(ids)
	})
}

// FuzzEncode holds the real tokenizers to their invariants on arbitrary
// text: ids inside the vocabulary, Count equal to len(Encode), exact round
// trips where the model is lossless (byte-level BPE on any bytes;
// SentencePiece on text without "▁", with special-token text read as
// text), and, where llama.cpp's vocabularies are present, the same ids from
// the tokenizer.json and the GGUF of the same model.
func FuzzEncode(f *testing.F) {
	for _, s := range fragments {
		f.Add(s)
	}
	f.Add("Hello, y'all! How are you 😁 ?我想在apple工作1314151天～")
	f.Add("\n \n\n \t\t \t\n  \n   \n    Hello")
	var gpt2GGUF, llamaGGUF, llamaJSON *Tokenizer
	if haveVocab(f) {
		gpt2GGUF = ggufTokenizer(f, "gpt-2")
		llamaGGUF = ggufTokenizer(f, "llama-spm").WithSpecialTokens(false)
		tok, err := ReadJSON(bytes.NewReader(spmJSON(f, filepath.Join(vocabDir(f), "ggml-vocab-llama-spm.gguf"))), "llama-spm")
		if err != nil {
			f.Fatal(err)
		}
		llamaJSON = tok.WithSpecialTokens(false)
	}
	gpt2, mistral := testdataTokenizer(f, "gpt2"), testdataTokenizer(f, "mistral").WithSpecialTokens(false)
	f.Fuzz(func(t *testing.T, text string) {
		for name, tok := range map[string]*Tokenizer{"gpt2": gpt2, "mistral": mistral} {
			ids := tok.WithBOS(false).Encode(text)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("%s: id %d outside the vocabulary", name, id)
				}
			}
			if n := tok.Count(text); n != len(tok.Encode(text)) {
				t.Fatalf("%s: Count = %d, len(Encode) = %d", name, n, len(tok.Encode(text)))
			}
			if name == "mistral" && strings.Contains(text, "▁") {
				continue
			}
			if got := tok.Decode(ids); got != text {
				t.Fatalf("%s: Decode(Encode(%q)) = %q", name, text, got)
			}
		}
		if gpt2GGUF != nil {
			if a, b := gpt2.Encode(text), gpt2GGUF.Encode(text); !slices.Equal(a, b) {
				t.Fatalf("gpt2 %q: tokenizer.json %v, gguf %v", text, a, b)
			}
		}
		if llamaGGUF != nil {
			if a, b := llamaJSON.Encode(text), llamaGGUF.Encode(text); !slices.Equal(a, b) {
				t.Fatalf("llama-spm %q: tokenizer.json %v, gguf %v", text, a, b)
			}
		}
	})
}

// FuzzSplitters holds the hand-written scanners to their patterns.
func FuzzSplitters(f *testing.F) {
	for _, s := range fragments {
		f.Add(s)
	}
	type pair struct{ hand, generic preStep }
	var pairs []pair
	for p, next := range handSplitters {
		c, err := compilePattern(p)
		if err != nil {
			f.Fatal(err)
		}
		pairs = append(pairs, pair{scanSplit{next}, regexSplitter(c, isolated, false)})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pairs {
			a, g := split(p.hand, s), split(p.generic, s)
			if !slices.Equal(a, g) {
				t.Fatalf("%q: hand %q, regexp %q", s, a, g)
			}
			if strings.Join(a, "") != s {
				t.Fatalf("%q: pieces %q do not cover the text", s, a)
			}
		}
	})
}
