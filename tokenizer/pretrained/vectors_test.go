package pretrained

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vocabDir holds llama.cpp's vocabulary-only GGUF files and its tokenizer
// test vectors, beside the repository (../shared/realengine/README.md).
// Under CI they must be there; elsewhere their absence skips the test.
func vocabDir(t testing.TB) string {
	t.Helper()
	if !haveVocab(t) {
		t.Skip("no llama.cpp vocabularies in " + sharedVocab)
	}
	return sharedVocab
}

var sharedVocab = filepath.Join("..", "..", "..", "shared", "realengine", "vocab")

// haveVocab reports whether the vocabularies are there, failing t under CI
// when they are not.
func haveVocab(t testing.TB) bool {
	t.Helper()
	if _, err := os.Stat(sharedVocab); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp vocabularies missing under CI: %v", err)
		}
		return false
	}
	return true
}

// vector is one test text and the ids the Hugging Face tokenizer gave it.
type vector struct {
	text string
	ids  []int
}

// readVectors reads llama.cpp's test-tokenizer-0 files: base.inp holds the
// texts, each followed by a line "__ggml_vocab_test__"; base.out holds
// the ids, one text per line.
func readVectors(t testing.TB, base string) []vector {
	t.Helper()
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	texts := strings.Split(string(inp), sep)
	if texts[len(texts)-1] != "" {
		t.Fatalf("%s.inp does not end with the separator", base)
	}
	texts = texts[:len(texts)-1]
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("%s: %d texts but %d id lines", base, len(texts), len(lines))
	}
	vs := make([]vector, len(texts))
	for i, l := range lines {
		vs[i].text = texts[i]
		for _, f := range strings.Fields(l) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s.out line %d: %v", base, i+1, err)
			}
			vs[i].ids = append(vs[i].ids, id)
		}
	}
	return vs
}

// checkVectors encodes every vector without BOS (the references were made
// with add_special_tokens=False) and reports each mismatch.
func checkVectors(t *testing.T, tok *Tokenizer, vs []vector) {
	t.Helper()
	tok = tok.WithBOS(false).WithEOS(false)
	bad := 0
	for i, v := range vs {
		got := tok.Encode(v.text)
		if !slices.Equal(got, v.ids) {
			bad++
			t.Errorf("vector %d %q:\n got %v\nwant %v", i, clip(v.text), got, v.ids)
		}
		if n := tok.Count(v.text); n != len(v.ids) {
			t.Errorf("vector %d: Count = %d, want %d", i, n, len(v.ids))
		}
	}
	if bad == 0 {
		t.Logf("%d vectors pass", len(vs))
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func TestGGUFVectors(t *testing.T) {
	dir := vocabDir(t)
	for _, name := range []string{"llama-spm", "phi-3", "gpt-2", "deepseek-llm"} {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(dir, fmt.Sprintf("ggml-vocab-%s.gguf", name))
			tok, err := Open(base)
			if err != nil {
				t.Fatal(err)
			}
			checkVectors(t, tok, readVectors(t, base))
		})
	}
}

// TestJSONVectors runs the same vectors through the tokenizer.json of the
// same models (testdata/README.md says where each comes from).
func TestJSONVectors(t *testing.T) {
	dir := vocabDir(t)
	for _, tc := range []struct{ json, vectors string }{
		{"gpt2", "gpt-2"},
		// Qwen 2.5 shares Qwen 2's vocabulary, merges and pattern; it adds
		// special tokens that these vectors do not contain.
		{"qwen2_5", "qwen2"},
	} {
		t.Run(tc.json, func(t *testing.T) {
			tok := testdataTokenizer(t, tc.json)
			checkVectors(t, tok, readVectors(t, filepath.Join(dir, "ggml-vocab-"+tc.vectors+".gguf")))
		})
	}
}

// TestExtraJSONVectors runs vectors through tokenizer.json files that are
// not kept in the repository (their licences ask for more than a note):
// GOODPUT_TOKENIZER_JSON_DIR may hold llama-bpe/tokenizer.json (Llama 3's),
// or a directory per llama.cpp vocabulary name.
func TestExtraJSONVectors(t *testing.T) {
	root := os.Getenv("GOODPUT_TOKENIZER_JSON_DIR")
	if root == "" {
		t.Skip("GOODPUT_TOKENIZER_JSON_DIR is not set")
	}
	dir := vocabDir(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		base := filepath.Join(dir, "ggml-vocab-"+e.Name()+".gguf")
		if _, err := os.Stat(base + ".inp"); err != nil {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			checkVectors(t, openCached(t, filepath.Join(root, e.Name())), readVectors(t, base))
		})
	}
}
