package cli

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every goodput command line of docs/switching.md's tables runs: each
// span of its goodput column that is a command line (flags, or a sweep)
// is given to bench or sweep with --dry-run, its placeholders replaced by
// values and files of the tests.
func TestSwitchingLinesRun(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "switching.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tok := filepath.Join(dir, "tokenizer.json")
	gunzip(t, filepath.Join("..", "..", "tokenizer", "pretrained", "testdata", "gpt2", "tokenizer.json.gz"), tok)
	placeholders := strings.NewReplacer(
		"N(A,S)/(B,T)", "N(100,10)/(50,5)",
		"--dataset-path FILE", "--dataset-path ../../workload/testdata/sharegpt_small.json",
		"--tokenizer FILE", "--tokenizer "+tok,
		"--result-dir DIR", "--result-dir "+filepath.Join(dir, "out"),
		"--base-url URL", "--base-url http://127.0.0.1:9", "--model M", "--model m",
		" Ss", " 30s", " N", " 4", " R", " 2", " D", " 5s",
	)
	span := regexp.MustCompile("`([^`]+)`")
	lines := 0
	for _, row := range strings.Split(string(doc), "\n") {
		cells := strings.Split(row, " | ")
		if !strings.HasPrefix(row, "| ") || len(cells) != 2 || strings.HasPrefix(cells[1], "goodput |") {
			continue
		}
		for _, m := range span.FindAllStringSubmatch(cells[1], -1) {
			line := m[1]
			cmd := "bench"
			if rest, ok := strings.CutPrefix(line, "goodput sweep "); ok {
				cmd, line = "sweep", rest
			} else if !strings.HasPrefix(line, "--") {
				continue // a value in words: openai, /tokenize
			}
			args := append([]string{cmd}, splitLine(placeholders.Replace(line+" "))...)
			args = append(args, "--dry-run")
			lines++
			if _, errOut, code := run(t, "", args...); code != 0 {
				t.Errorf("docs/switching.md: goodput %s: exit %d\n%s", strings.Join(args[:len(args)-1], " "), code, errOut)
			}
		}
	}
	t.Logf("ran %d command lines of docs/switching.md", lines)
	if lines < 30 {
		t.Errorf("ran %d command lines of docs/switching.md; its tables hold more", lines)
	}
}

func gunzip(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	z, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
}
