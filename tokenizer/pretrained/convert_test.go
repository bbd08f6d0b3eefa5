package pretrained

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

// spmJSON derives, from a SentencePiece GGUF vocabulary, the tokenizer.json
// that Hugging Face's converter writes for it (transformers'
// SentencePieceExtractor): every split of a piece into two pieces is a
// merge, the merges of one piece ordered by the ids of their halves, and
// all of them by the score of the piece they make, highest first (a stable
// sort). The rest of the file is the structure of testdata/mistral's real
// tokenizer.json, a Llama-style SentencePiece vocabulary.
func spmJSON(t testing.TB, path string) []byte {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tokens, _ := f.Strings("tokenizer.ggml.tokens")
	scores, _ := f.Float32s("tokenizer.ggml.scores")
	types, _ := f.Int32s("tokenizer.ggml.token_type")
	vocab := make(map[string]int, len(tokens))
	for i, tok := range tokens {
		vocab[tok] = i
	}
	type merge struct {
		l, r  string
		score float32
	}
	var merges []merge
	for _, piece := range tokens {
		var local []merge
		for i := range piece {
			if i == 0 {
				continue
			}
			if _, ok := vocab[piece[:i]]; !ok {
				continue
			}
			if _, ok := vocab[piece[i:]]; ok && utf8.RuneStart(piece[i]) {
				local = append(local, merge{piece[:i], piece[i:], scores[vocab[piece]]})
			}
		}
		slices.SortStableFunc(local, func(a, b merge) int {
			if d := vocab[a.l] - vocab[b.l]; d != 0 {
				return d
			}
			return vocab[a.r] - vocab[b.r]
		})
		merges = append(merges, local...)
	}
	slices.SortStableFunc(merges, func(a, b merge) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})

	var doc map[string]any
	if err := json.Unmarshal(readTestdataJSON(t, "mistral"), &doc); err != nil {
		t.Fatal(err)
	}
	var added []map[string]any
	for i, tok := range tokens {
		if types[i] == ggufControl || types[i] == ggufUnknown {
			added = append(added, map[string]any{"id": i, "content": tok, "single_word": false,
				"lstrip": false, "rstrip": false, "normalized": false, "special": true})
		}
	}
	doc["added_tokens"] = added
	pairs := make([]string, len(merges))
	for i, m := range merges {
		pairs[i] = m.l + " " + m.r
	}
	model := doc["model"].(map[string]any)
	model["vocab"], model["merges"] = vocab, pairs
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readTestdataJSON(t testing.TB, name string) []byte {
	t.Helper()
	data, err := readLimited(filepath.Join(unpackTestdata(t, name), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestConvertedSPMVectors runs llama.cpp's Llama 2 vectors through the
// tokenizer.json derived from the same vocabulary: Hugging Face's
// rank-ordered BPE with byte fallback and the Prepend/Replace normalizer
// must give what llama.cpp's score-ordered merges give.
func TestConvertedSPMVectors(t *testing.T) {
	base := filepath.Join(vocabDir(t), "ggml-vocab-llama-spm.gguf")
	tok, err := ReadJSON(bytes.NewReader(spmJSON(t, base)), "llama-spm")
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, tok, readVectors(t, base))
}

// bpeGGUF converts a byte-level tokenizer.json into the GGUF vocabulary
// llama.cpp's converter writes for it: tokens by id, special added tokens
// as control tokens and other added tokens as user-defined ones, the merges
// as "a b" strings, and the given pre-tokenizer type.
func bpeGGUF(t testing.TB, tokenizerJSON []byte, pre string) *Tokenizer {
	t.Helper()
	var doc struct {
		AddedTokens []hfAddedToken `json:"added_tokens"`
		Model       struct {
			Vocab  map[string]int  `json:"vocab"`
			Merges json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tokenizerJSON, &doc); err != nil {
		t.Fatal(err)
	}
	n := len(doc.Model.Vocab)
	for _, a := range doc.AddedTokens {
		n = max(n, int(a.ID)+1)
	}
	tokens := make([]string, n)
	types := make([]int32, n)
	for tok, id := range doc.Model.Vocab {
		tokens[id], types[id] = tok, ggufNormal
	}
	for _, a := range doc.AddedTokens {
		tokens[a.ID], types[a.ID] = a.Content, ggufUserDefined
		if a.Special {
			types[a.ID] = ggufControl
		}
	}
	for i := range tokens {
		if tokens[i] == "" {
			tokens[i], types[i] = fmt.Sprintf("[PAD%d]", i), ggufUnused
		}
	}
	var merges []string
	if json.Unmarshal(doc.Model.Merges, &merges) != nil {
		var pairs [][2]string
		if err := json.Unmarshal(doc.Model.Merges, &pairs); err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			merges = append(merges, p[0]+" "+p[1])
		}
	}
	f := &gguf.File{}
	f.Add("tokenizer.ggml.model", gguf.Scalar("gpt2"))
	f.Add("tokenizer.ggml.pre", gguf.Scalar(pre))
	f.Add("tokenizer.ggml.tokens", gguf.ArrayOf(tokens))
	f.Add("tokenizer.ggml.token_type", gguf.ArrayOf(types))
	f.Add("tokenizer.ggml.merges", gguf.ArrayOf(merges))
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	tok, err := ReadGGUF(&buf, pre)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestConvertedBPEVectors runs llama.cpp's Qwen 2 vectors through the GGUF
// vocabulary converted from Qwen 2.5's tokenizer.json, exercising the GGUF
// path of pre-tokenizer type qwen2 (and, where GOODPUT_TOKENIZER_JSON_DIR
// holds Llama 3's tokenizer.json, type llama-bpe).
func TestConvertedBPEVectors(t *testing.T) {
	dir := vocabDir(t)
	cases := []struct{ name, pre string }{{"qwen2_5", "qwen2"}}
	var llama3 []byte
	if root := os.Getenv("GOODPUT_TOKENIZER_JSON_DIR"); root != "" {
		if data, err := os.ReadFile(filepath.Join(root, "llama-bpe", "tokenizer.json")); err == nil {
			llama3 = data
			cases = append(cases, struct{ name, pre string }{"llama-bpe", "llama-bpe"})
		}
	}
	for _, c := range cases {
		t.Run(c.pre, func(t *testing.T) {
			data := llama3
			if c.name == "qwen2_5" {
				data = readTestdataJSON(t, c.name)
			}
			checkVectors(t, bpeGGUF(t, data, c.pre), readVectors(t, filepath.Join(dir, "ggml-vocab-"+c.pre+".gguf")))
		})
	}
}
