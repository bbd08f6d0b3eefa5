package pretrained

import (
	"bytes"
	"encoding/json"
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
