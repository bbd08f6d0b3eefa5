package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// ReadSpecBench reads Spec-Bench's question.jsonl
// (github.com/hemingkx/Spec-Bench): one object per line with a "category"
// and "turns", a list of prompts. As in `vllm bench serve --dataset-name
// spec_bench`, each line's first turn becomes a prompt asking for
// --spec-bench-output-len tokens, only those of --spec-bench-category when
// it is set. A malformed line is an error naming name:line.
func ReadSpecBench(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "spec_bench " + name
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxCustomLine)
	coll := newCollector(c)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		coll.entry()
		var l struct {
			Category string   `json:"category"`
			Turns    []string `json:"turns"`
		}
		if err := json.Unmarshal(text, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, jsonerr.Plain(err))
		}
		switch {
		case len(l.Turns) == 0:
			return nil, fmt.Errorf(`%s:%d: no "turns"`, name, line)
		case c.SpecBench.Category != "" && l.Category != c.SpecBench.Category:
			coll.skip("of another category")
			continue
		case l.Turns[0] == "":
			coll.skip("with an empty first turn")
			continue
		}
		coll.add(Item{Prompt: l.Turns[0], InputTokens: tokenizer.Count(l.Turns[0]), OutputTokens: c.Request.capOutput(c.SpecBench.OutputLen)})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d MiB", name, line+1, MaxCustomLine>>20)
		}
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return coll.dataset(label)
}
