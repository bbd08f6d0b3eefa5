package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// emptyHubCache points every place the Hugging Face cache is looked for
// at an empty directory, so that a test does not see the machine's, and
// returns the directory $HF_HUB_CACHE names.
func emptyHubCache(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	cache := filepath.Join(home, "hub")
	t.Setenv("HF_HUB_CACHE", cache)
	return cache
}

// cacheDataset lays files out as huggingface_hub caches a dataset
// repository: each file's bytes in blobs, a link to them in the snapshot
// refs/main names.
func cacheDataset(t *testing.T, cache, id string, files map[string]string) string {
	t.Helper()
	repo := filepath.Join(cache, "datasets--"+strings.ReplaceAll(id, "/", "--"))
	snap := filepath.Join(repo, "snapshots", "0123abcd")
	blobs := filepath.Join(repo, "blobs")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, body := range files {
		n++
		blob := filepath.Join(blobs, fmt.Sprintf("blob%d", n))
		if err := os.WriteFile(blob, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(snap, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(blob, p); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(repo, "refs"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("0123abcd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return snap
}

// A vLLM command line that names an hf dataset by its hub id runs on the
// copy vLLM's loader left in the local Hugging Face cache: the files of
// the split, every shard of it; BFCL's snapshot directory. Without a copy
// the run says how to download one, as before.
func TestHFDatasetFromTheHubCache(t *testing.T) {
	cache := emptyHubCache(t)
	const aimo = "AI-MO/aimo-validation-aime"
	row := func(id int, problem string) string {
		return `{"id": ` + string(rune('0'+id)) + `, "problem": "` + problem + `", "solution": "A solution long enough to be kept by the bounds, surely."}` + "\n"
	}
	snap := cacheDataset(t, cache, aimo, map[string]string{
		"data/train-00000-of-00002.jsonl": row(1, "What is the remainder when 7 to the power 100 is divided by 5?"),
		"data/train-00001-of-00002.jsonl": row(2, "Find the number of positive divisors of 360 that are perfect squares."),
		"data/test-00000-of-00001.jsonl":  row(3, "A problem of the test split, not to be read."),
		"README.md":                       "# card\n",
	})
	out, errOut, code := run(t, "", "bench", "--dry-run", "--model", "Qwen/QwQ-32B", "--dataset-name", "hf", "--dataset-path", aimo, "--num-prompts", "10")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "goodput: --dataset-path " + aimo + ": split train of the copy in the local Hugging Face cache, " + snap + " (2 files)"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if !strings.Contains(out, "(2 files: "+filepath.Join(snap, "data", "train-00000-of-00002.jsonl")+" …): 2 items;") {
		t.Errorf("want both shards' rows and no test row:\n%s", out)
	}

	// --hf-split picks another split.
	out, errOut, code = run(t, "", "bench", "--dry-run", "--dataset-name", "hf", "--dataset-path", aimo, "--hf-split", "test", "--num-prompts", "10")
	if code != ExitOK || !strings.Contains(errOut, "split test of the copy") || !strings.Contains(out, "test-00000-of-00001.jsonl): 1 items;") {
		t.Errorf("--hf-split test: exit %d\n%s\n%s", code, errOut, out)
	}
	// A split the copy does not hold names it.
	if _, errOut, code = run(t, "", "bench", "--dry-run", "--dataset-name", "hf", "--dataset-path", aimo, "--hf-split", "validation"); code != ExitUsage ||
		!strings.Contains(errOut, "holds no .parquet, .jsonl or .json file of split validation") {
		t.Errorf("--hf-split validation: exit %d, %s", code, errOut)
	}

	const bfcl = "gorilla-llm/Berkeley-Function-Calling-Leaderboard"
	fn := `{"question": [[{"role": "user", "content": "What is the weather in Oslo?"}]], "function": [{"name": "weather", "parameters": {"type": "dict", "properties": {}}}]}` + "\n"
	cacheDataset(t, cache, bfcl, map[string]string{"BFCL_v3_simple.json": fn, "BFCL_v3_live_simple.json": fn, "BFCL_v3_multiple.json": fn})
	if _, errOut, code := run(t, "", "bench", "--dry-run", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "hf",
		"--dataset-path", bfcl, "--bfcl-categories", "simple,live_simple,multiple", "--num-prompts", "3"); code != ExitOK || !strings.Contains(errOut, "the copy in the local Hugging Face cache") {
		t.Errorf("BFCL: exit %d, %s", code, errOut)
	}

	// Without a copy, the download line.
	if _, errOut, code := run(t, "", "bench", "--dry-run", "--dataset-name", "hf", "--dataset-path", "philschmid/mt-bench"); code != ExitUsage ||
		!strings.Contains(errOut, "huggingface-cli download --repo-type dataset philschmid/mt-bench") {
		t.Errorf("no copy: exit %d, %s", code, errOut)
	}
}
