package workload

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/hfcache"
)

// FromHubCache points an hf --dataset-path that names a dataset on the
// Hugging Face hub ("org/name", no such local file) at the dataset's copy
// in the local Hugging Face cache, where `huggingface-cli download` puts
// it (and vLLM's BFCL loader): the snapshot's directory for BFCL, else the data
// files of --hf-split (train, or the split vLLM reads the dataset with),
// within --hf-subset when it names a folder, read in turn. --hf-name
// takes the id, which picks the dataset's reading. It returns c and ""
// where there is nothing to find (the run then says how to download the
// dataset), and an error naming the files where the split cannot be told.
func (c Config) FromHubCache() (Config, string, error) {
	if c.Dataset != DatasetHF || !hubID(c.Path) {
		return c, "", nil
	}
	if _, err := os.Stat(c.Path); err == nil {
		return c, "", nil // a local path that reads like an id
	}
	id := c.Path
	dir, ok := hfcache.Snapshot("datasets", id)
	if !ok {
		return c, "", nil
	}
	if c.HF.Name == "" {
		c.HF.Name = id
	}
	if c.isBFCL() {
		c.Path = dir
		return c, fmt.Sprintf("--dataset-path %s: the copy in the local Hugging Face cache, %s", id, dir), nil
	}
	split := c.HF.Split
	if split == "" {
		split = hfDefaultSplit(c.HF.Name)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".parquet", ".jsonl", ".json":
			rel, _ := filepath.Rel(dir, p)
			if inSplit(rel, split, c.HF.Subset) {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return c, "", fmt.Errorf("--dataset-path %s: reading its copy in the local Hugging Face cache: %w", id, err)
	}
	if len(files) == 0 {
		return c, "", fmt.Errorf("--dataset-path %s: its copy in the local Hugging Face cache (%s) holds no .parquet, .jsonl or .json file of split %s: give --hf-split, or one file as --dataset-path with --hf-name %s", id, dir, split, id)
	}
	slices.Sort(files)
	c.Path, c.HF.Files = files[0], files
	return c, fmt.Sprintf("--dataset-path %s: split %s of the copy in the local Hugging Face cache, %s (%d files)", id, split, dir, len(files)), nil
}

// hfDefaultSplit is the split vLLM reads a dataset with when --hf-split is
// not given.
func hfDefaultSplit(id string) string {
	switch id {
	case "openai/openai_humaneval", "openai/gsm8k":
		return "test"
	}
	return "train"
}

// inSplit reports whether the file at rel, a path within a snapshot, holds
// split (a path element named so, or a file name that begins with it, as
// in data/train-00000-of-00001.parquet or test.jsonl), under the folder
// subset when subset is given and the path has folders.
func inSplit(rel, split, subset string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if subset != "" && len(parts) > 1 && !slices.Contains(parts[:len(parts)-1], subset) {
		return false
	}
	for _, p := range parts[:len(parts)-1] {
		if p == split {
			return true
		}
	}
	name := parts[len(parts)-1]
	rest, ok := strings.CutPrefix(name, split)
	return ok && (strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "_") || strings.HasPrefix(rest, "."))
}
