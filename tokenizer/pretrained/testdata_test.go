package pretrained

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testdataDirs holds, per testdata model, a directory with its unpacked
// tokenizer.json and tokenizer_config.json, made once per test process.
var testdataDirs sync.Map // name → string

// unpackTestdata returns a directory holding testdata/name's tokenizer.json
// (stored gzipped) and tokenizer_config.json.
func unpackTestdata(t testing.TB, name string) string {
	t.Helper()
	if d, ok := testdataDirs.Load(name); ok {
		return d.(string)
	}
	dir, err := os.MkdirTemp("", "pretrained-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", name)
	gz, err := os.Open(filepath.Join(src, "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if cfg, err := os.ReadFile(filepath.Join(src, "tokenizer_config.json")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	actual, _ := testdataDirs.LoadOrStore(name, dir)
	return actual.(string)
}

// loaded caches tokenizers by path: loading a large vocabulary takes a
// good part of a second, and many tests share one.
var loaded sync.Map // path → *Tokenizer

func openCached(t testing.TB, path string) *Tokenizer {
	t.Helper()
	if tok, ok := loaded.Load(path); ok {
		return tok.(*Tokenizer)
	}
	tok, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(path, tok)
	return tok
}

// testdataTokenizer opens a testdata model through its directory.
func testdataTokenizer(t testing.TB, name string) *Tokenizer {
	t.Helper()
	return openCached(t, unpackTestdata(t, name))
}

// ggufTokenizer opens one of llama.cpp's vocabularies.
func ggufTokenizer(t testing.TB, name string) *Tokenizer {
	t.Helper()
	return openCached(t, filepath.Join(vocabDir(t), "ggml-vocab-"+name+".gguf"))
}

func TestMain(m *testing.M) {
	code := m.Run()
	testdataDirs.Range(func(_, d any) bool {
		os.RemoveAll(filepath.Dir(d.(string)))
		return true
	})
	os.Exit(code)
}
