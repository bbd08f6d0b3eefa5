package workload

import (
	"errors"
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
	coll := newCollector(c)
	err := EachLine(r, name, func(_ int, text []byte) error {
		coll.entry()
		var l struct {
			Category string   `json:"category"`
			Turns    []string `json:"turns"`
		}
		if err := jsonerr.Unmarshal(text, &l); err != nil {
			return jsonerr.Plain(err)
		}
		switch {
		case len(l.Turns) == 0:
			return errors.New(`no "turns"`)
		case c.SpecBench.Category != "" && l.Category != c.SpecBench.Category:
			coll.skip("of another category")
		case l.Turns[0] == "":
			coll.skip("with an empty first turn")
		default:
			coll.add(Item{Prompt: l.Turns[0], InputTokens: tokenizer.Count(l.Turns[0]), OutputTokens: c.Request.capOutput(c.SpecBench.OutputLen)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return coll.dataset(label)
}
