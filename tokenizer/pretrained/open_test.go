package pretrained

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

// tinyGGUF writes a small byte-level GGUF vocabulary to path.
func tinyGGUF(t testing.TB, path string, edit func(*gguf.File)) {
	t.Helper()
	f := &gguf.File{}
	f.Add("general.name", gguf.Scalar("tiny-bpe"))
	f.Add("tokenizer.ggml.model", gguf.Scalar("gpt2"))
	f.Add("tokenizer.ggml.pre", gguf.Scalar("gpt-2"))
	f.Add("tokenizer.ggml.tokens", gguf.ArrayOf([]string{"h", "i", "Ġ", "hi", "Ġhi", "<|eot|>"}))
	f.Add("tokenizer.ggml.token_type", gguf.ArrayOf([]int32{1, 1, 1, 1, 1, 3}))
	f.Add("tokenizer.ggml.merges", gguf.ArrayOf([]string{"h i", "Ġ hi"}))
	f.Add("tokenizer.ggml.eos_token_id", gguf.Scalar(uint32(5)))
	if edit != nil {
		edit(f)
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenPaths(t *testing.T) {
	dir := t.TempDir()
	ggufPath := filepath.Join(dir, "model-Q4_K_M.gguf")
	tinyGGUF(t, ggufPath, nil)
	tok, err := Open(ggufPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("hi hi<|eot|>"); !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("tiny GGUF: Encode = %v, want [3 4 5]", got)
	}
	if tok.Name() != "tiny-bpe" {
		t.Errorf("Name = %q, want general.name", tok.Name())
	}
	// A directory with one GGUF file opens it.
	if tok, err := Open(dir); err != nil || tok.Name() != "tiny-bpe" {
		t.Errorf("Open(dir with one .gguf) = %v, %v", tok, err)
	}
	// Without general.name, the file's name.
	noName := filepath.Join(t.TempDir(), "nameless.gguf")
	tinyGGUF(t, noName, func(f *gguf.File) {
		f.KVs = slices.DeleteFunc(f.KVs, func(kv gguf.KV) bool { return kv.Key == "general.name" })
	})
	if tok, err := Open(noName); err != nil || tok.Name() != "nameless" {
		t.Errorf("Open(nameless.gguf) = %v, %v; want the name nameless", tok, err)
	}
	// A directory with tokenizer.json opens that, named after the directory.
	gpt2 := unpackTestdata(t, "gpt2")
	if tok, err := Open(gpt2); err != nil || tok.Name() != "gpt2" {
		t.Errorf("Open(gpt2 dir) = %v, %v", tok, err)
	}
	if tok, err := Open(filepath.Join(gpt2, "tokenizer.json")); err != nil || tok.Name() != "gpt2" {
		t.Errorf("Open(gpt2/tokenizer.json) = %v, %v", tok, err)
	}
}

func TestOpenHubCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	repo := filepath.Join(cache, "models--openai-community--gpt2")
	snap := filepath.Join(repo, "snapshots", "607a30d783dfa663caf39e06633721c8d4cfcd7e")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(repo, "refs"), 0o755)
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("607a30d783dfa663caf39e06633721c8d4cfcd7e\n"), 0o644)
	data := readTestdataJSON(t, "gpt2")
	os.WriteFile(filepath.Join(snap, "tokenizer.json"), data, 0o644)

	tok, err := Open("openai-community/gpt2")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name() != "openai-community/gpt2" {
		t.Errorf("Name = %q, want the model id", tok.Name())
	}
	if got := tok.Encode("Hello world"); !slices.Equal(got, []int{15496, 995}) {
		t.Errorf("Encode = %v", got)
	}
	// Without refs/main, the one snapshot that has a tokenizer.json.
	os.Remove(filepath.Join(repo, "refs", "main"))
	if _, err := Open("openai-community/gpt2"); err != nil {
		t.Errorf("without refs/main: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())

	noJSON := t.TempDir()
	os.WriteFile(filepath.Join(noJSON, "tokenizer.model"), []byte("sp"), 0o644)
	twoGGUF := t.TempDir()
	tinyGGUF(t, filepath.Join(twoGGUF, "a.gguf"), nil)
	tinyGGUF(t, filepath.Join(twoGGUF, "b.gguf"), nil)
	notTok := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notTok, []byte("hello"), 0o644)
	bert := filepath.Join(t.TempDir(), "bert.gguf")
	tinyGGUF(t, bert, func(f *gguf.File) { f.Add("tokenizer.ggml.model", gguf.Scalar("bert")) })
	noVocab := filepath.Join(t.TempDir(), "weights.gguf")
	tinyGGUF(t, noVocab, func(f *gguf.File) { f.KVs = f.KVs[:1] })
	unknownPre := filepath.Join(t.TempDir(), "pre.gguf")
	tinyGGUF(t, unknownPre, func(f *gguf.File) { f.Add("tokenizer.ggml.pre", gguf.Scalar("martian")) })
	dup := filepath.Join(t.TempDir(), "dup.gguf")
	tinyGGUF(t, dup, func(f *gguf.File) {
		f.Add("tokenizer.ggml.tokens", gguf.ArrayOf([]string{"h", "h", "Ġ", "hi", "Ġhi", "<|eot|>"}))
	})
	shortTypes := filepath.Join(t.TempDir(), "types.gguf")
	tinyGGUF(t, shortTypes, func(f *gguf.File) { f.Add("tokenizer.ggml.token_type", gguf.ArrayOf([]int32{1})) })
	badBOS := filepath.Join(t.TempDir(), "bos.gguf")
	tinyGGUF(t, badBOS, func(f *gguf.File) { f.Add("tokenizer.ggml.add_bos_token", gguf.Scalar(true)) })

	tests := []struct {
		name, path string
		want       []string // all in the error
		notExist   bool
	}{
		// A model id that is not cached says what to download and how.
		{"model id", "meta-llama/Llama-3.1-8B-Instruct", []string{
			"meta-llama/Llama-3.1-8B-Instruct", "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/tokenizer.json",
			"huggingface-cli download meta-llama/Llama-3.1-8B-Instruct tokenizer.json",
		}, false},
		// A missing file is a plain not-found error.
		{"missing file", filepath.Join(noJSON, "nope.json"), []string{"nope.json"}, true},
		{"missing relative", "models/x.gguf", []string{"models/x.gguf"}, true},
		// A directory without tokenizer.json says what to put there.
		{"no tokenizer.json", noJSON, []string{noJSON, "no tokenizer.json", "tokenizer.model", "huggingface.co"}, false},
		{"two ggufs", twoGGUF, []string{"2 .gguf files"}, false},
		{"not a tokenizer", notTok, []string{notTok, "neither a GGUF file nor a tokenizer.json"}, false},
		{"bert", bert, []string{bert, `tokenizer.ggml.model "bert" is not supported`}, false},
		{"no vocabulary", noVocab, []string{"tokenizer.ggml.model is missing"}, false},
		{"unknown pre-tokenizer", unknownPre, []string{`tokenizer.ggml.pre "martian"`}, false},
		{"duplicate token", dup, []string{`token "h" is both id 0 and id 1`}, false},
		{"short token types", shortTypes, []string{"token_type has 1 entries for 6 tokens"}, false},
		{"bos without id", badBOS, []string{"add_bos_token is true, but there is no BOS token"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.path)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if errors.Is(err, fs.ErrNotExist) != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", !tt.notExist, tt.notExist)
			}
		})
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not json", `{`, "unexpected end"},
		{"unigram", `{"model": {"type": "Unigram", "vocab": [["a", 0]]}}`, `model type "Unigram" is not supported`},
		{"no model", `{"model": {}}`, "no type and no merges"},
		{"empty vocab", `{"model": {"type": "BPE", "vocab": {}, "merges": []}}`, "model.vocab is empty"},
		{"negative id", `{"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}}`, "has id -1"},
		{"huge id", `{"model": {"type": "BPE", "vocab": {"a": 4000000}, "merges": []}}`, "only 1 tokens are defined"},
		{"merge outside vocabulary", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}`, `model.merges[0]: "a" "b"`},
		{"merged token missing", `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}`, `the merged token "ab"`},
		{"bad merge line", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}}`, "not two tokens"},
		{"unk missing", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "<unk>"}}`, `unk_token "<unk>"`},
		{"unknown normalizer", `{"normalizer": {"type": "Precompiled"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, `normalizer "Precompiled" is not supported`},
		{"unknown pre-tokenizer", `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, `pre_tokenizer "BertPreTokenizer" is not supported`},
		{"bad split", `{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(?<=a)b"}, "behavior": "Isolated"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, "look-around"},
		{"bad behavior", `{"pre_tokenizer": {"type": "Split", "pattern": {"String": "a"}, "behavior": "Sideways"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, `behavior "Sideways"`},
		{"unknown decoder", `{"decoder": {"type": "CTC"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, `decoder "CTC" is not supported`},
		{"template to nowhere", `{"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}], "special_tokens": {}}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`, `special token "<s>"`},
	}
	for _, tt := range tests {
		_, err := ReadJSON(strings.NewReader(tt.doc), "x")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadJSON = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestTokenizerConfig(t *testing.T) {
	// tokenizer_config.json's add_bos_token and add_eos_token rebuild what
	// is added around the text, as Hugging Face's Llama tokenizers do.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), readTestdataJSON(t, "mistral"), 0o644)
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"add_bos_token": false, "add_eos_token": true, "bos_token": {"content": "<s>"}, "eos_token": "</s>"}`), 0o644)
	tok, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("Hello"); !slices.Equal(got, []int{22557, 2}) {
		t.Errorf("Encode = %v, want [22557 2]", got)
	}
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"add_bos_token": `), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "tokenizer_config.json") {
		t.Errorf("a broken tokenizer_config.json: %v", err)
	}
}

func TestGGUFSpecialIDs(t *testing.T) {
	tests := []struct {
		name string
		edit func(*gguf.File)
		text string
		want []int
	}{
		// An EOS id outside the vocabulary is ignored, as llama.cpp does.
		{"eos out of range", func(f *gguf.File) {
			f.Add("tokenizer.ggml.eos_token_id", gguf.Scalar(uint32(99)))
			f.Add("tokenizer.ggml.add_eos_token", gguf.Scalar(false))
		}, "hi", []int{3}},
		// A byte-level vocabulary adds no BOS unless its file says so.
		{"bos on request", func(f *gguf.File) {
			f.Add("tokenizer.ggml.bos_token_id", gguf.Scalar(uint32(5)))
			f.Add("tokenizer.ggml.add_bos_token", gguf.Scalar(true))
		}, "hi", []int{5, 3}},
		// Llama 3's pre-tokenizer type implies a BOS.
		{"llama-bpe implies bos", func(f *gguf.File) {
			f.Add("tokenizer.ggml.pre", gguf.Scalar("llama-bpe"))
			f.Add("tokenizer.ggml.bos_token_id", gguf.Scalar(uint32(5)))
		}, "hi", []int{5, 3}},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "v.gguf")
		tinyGGUF(t, path, tt.edit)
		tok, err := Open(path)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
		if id, ok := tok.EOS(); ok && id >= tok.VocabSize() {
			t.Errorf("%s: EOS %d outside the vocabulary", tt.name, id)
		}
	}
}
