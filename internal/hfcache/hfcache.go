// Package hfcache finds repositories in the local Hugging Face cache, laid
// out as huggingface_hub lays it out: ROOT/{models,datasets}--ORG--NAME,
// with refs/main naming the revision of snapshots/REV. It reads the cache
// and never writes it or fetches anything.
package hfcache

import (
	"os"
	"path/filepath"
	"strings"
)

// Roots returns the cache directories to look in, in the order
// huggingface_hub prefers them: $HF_HUB_CACHE, $HF_HOME/hub,
// $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub. Directories
// that do not exist are included; looking in them finds nothing.
func Roots() []string {
	var roots []string
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		roots = append(roots, d)
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		roots = append(roots, filepath.Join(d, "hub"))
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		roots = append(roots, filepath.Join(d, "huggingface", "hub"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	return roots
}

// Repo is the cache's directory name of the repository id ("org/name")
// of a kind ("models" or "datasets"): "datasets--org--name".
func Repo(kind, id string) string { return kind + "--" + strings.ReplaceAll(id, "/", "--") }

// Snapshot returns the directory of the cached repository id of a kind
// ("models" or "datasets") at the revision its refs/main names, else its
// only snapshot; false where no root holds one of them.
func Snapshot(kind, id string) (string, bool) {
	for _, root := range Roots() {
		repo := filepath.Join(root, Repo(kind, id))
		if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
			if rev := strings.TrimSpace(string(ref)); rev != "" && !strings.ContainsAny(rev, `/\`) && rev != "." && rev != ".." {
				dir := filepath.Join(repo, "snapshots", rev)
				if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
					return dir, true
				}
			}
		}
		if found, _ := filepath.Glob(filepath.Join(repo, "snapshots", "*")); len(found) == 1 {
			return found[0], true
		}
	}
	return "", false
}
