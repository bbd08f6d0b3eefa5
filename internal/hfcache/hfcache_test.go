package hfcache

import (
	"os"
	"path/filepath"
	"testing"
)

// Snapshot takes the revision refs/main names, else the only snapshot,
// and finds nothing among several without a ref, or where no root holds
// the repository.
func TestSnapshot(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HF_HUB_CACHE", root)
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", t.TempDir())
	repo := filepath.Join(root, Repo("datasets", "org/name"))
	mk := func(rev string) string {
		d := filepath.Join(repo, "snapshots", rev)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if _, ok := Snapshot("datasets", "org/name"); ok {
		t.Fatal("found a snapshot of a repository not cached")
	}
	only := mk("aaa")
	if d, ok := Snapshot("datasets", "org/name"); !ok || d != only {
		t.Errorf("one snapshot: %q, %v", d, ok)
	}
	second := mk("bbb")
	if _, ok := Snapshot("datasets", "org/name"); ok {
		t.Error("two snapshots and no ref: one was picked")
	}
	os.MkdirAll(filepath.Join(repo, "refs"), 0o755)
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("bbb\n"), 0o644)
	if d, ok := Snapshot("datasets", "org/name"); !ok || d != second {
		t.Errorf("refs/main bbb: %q, %v", d, ok)
	}
	if _, ok := Snapshot("models", "org/name"); ok {
		t.Error("a dataset found as a model")
	}
}
