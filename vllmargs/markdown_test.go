package vllmargs

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/vllm.md's flag table from Flags")

// The markers around the generated table in docs/vllm.md.
const (
	tableStart = "<!-- flag table: generated from vllmargs.Flags by `go test ./vllmargs -run TestDocsTable -update` -->\n"
	tableEnd   = "<!-- end of the flag table -->\n"
)

// TestDocsTable: docs/vllm.md's flag table is Markdown() of Flags, one row
// per flag, so the documentation cannot drift from what Translate does.
func TestDocsTable(t *testing.T) {
	path := filepath.Join("..", "docs", "vllm.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok := strings.Cut(doc, tableStart)
	if !ok {
		t.Fatalf("%s lacks the table's start marker %q", path, tableStart)
	}
	table, after, ok := strings.Cut(rest, tableEnd)
	if !ok {
		t.Fatalf("%s lacks the table's end marker %q", path, tableEnd)
	}
	want := Markdown()
	if *update {
		if err := os.WriteFile(path, []byte(before+tableStart+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if table != want {
		t.Errorf("%s's flag table differs from Flags: run go test ./vllmargs -run TestDocsTable -update", path)
	}
}

// Every row of the table is one flag; the handlings are in bold, and no
// cell breaks the table with a bare '|'.
func TestMarkdown(t *testing.T) {
	md := Markdown()
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(lines) != len(Flags)+2 {
		t.Fatalf("%d lines for %d flags", len(lines), len(Flags))
	}
	for i, f := range Flags {
		line := lines[i+2]
		if !strings.HasPrefix(line, "| `--"+f.Name) {
			t.Errorf("row %d: %q, want flag %s", i, line, f.Name)
		}
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 4 {
			t.Errorf("%s: %d cell borders in %q", f.Name, n, line)
		}
		switch f.Handling {
		case Renamed:
			if !strings.Contains(line, "**renamed** `--"+f.To+"`") {
				t.Errorf("%s: %q does not name --%s", f.Name, line, f.To)
			}
		case Refused, Ignored:
			if !strings.Contains(line, "**"+f.Handling.String()+"**") {
				t.Errorf("%s: %q does not say %s", f.Name, line, f.Handling)
			}
		}
		// The bold word never leaves a dangling punctuation mark behind
		// it ("**ignored**: , as in vLLM").
		for _, bad := range []string{"**: ,", "**: ;", "**: :", "** ,"} {
			if strings.Contains(line, bad) {
				t.Errorf("%s: %q has %q", f.Name, line, bad)
			}
		}
	}
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Errorf("cell: %q", got)
	}
}
