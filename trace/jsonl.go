package trace

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// jsonlLine is one line of goodput's own trace format.
type jsonlLine struct {
	Time         *float64 `json:"time"` // seconds from any origin
	InputTokens  *int64   `json:"input_tokens"`
	OutputTokens *int64   `json:"output_tokens"`
	Prompt       *string  `json:"prompt"`
	HashIDs      []int64  `json:"hash_ids"`
}

type jsonl struct {
	lines *lines
	ids   []int64
}

func newJSONL(r io.Reader, name string) *jsonl { return &jsonl{lines: newLines(r, name)} }

// next reads one line. A prompt without "input_tokens" is counted with the
// built-in tokenizer, the simulator's.
func (j *jsonl) next() (Row, time.Duration, string, error) {
	b, err := j.lines.next()
	if err != nil {
		return Row{}, 0, "", err
	}
	l := jsonlLine{HashIDs: j.ids[:0]}
	row := Row{Line: j.lines.line}
	fail := func(err error) (Row, time.Duration, string, error) {
		return Row{}, 0, "", fmt.Errorf("%s:%d: %w", j.lines.name, row.Line, err)
	}
	if err := jsonerr.Unmarshal(b, &l); err != nil {
		return fail(jsonerr.Plain(err))
	}
	j.ids = l.HashIDs
	switch {
	case l.Time == nil:
		return fail(errors.New(`missing "time"`))
	case l.OutputTokens == nil:
		return fail(errors.New(`missing "output_tokens"`))
	case l.InputTokens == nil && l.Prompt != nil && *l.Prompt == "":
		return fail(errors.New(`"prompt" is empty, and there is no "input_tokens"`))
	case l.InputTokens == nil && l.Prompt == nil:
		return fail(errors.New(`missing "input_tokens" (or a "prompt" to count)`))
	}
	own, err := seconds(*l.Time)
	if err != nil {
		return fail(err)
	}
	if err := checkTokens(`"output_tokens"`, *l.OutputTokens); err != nil {
		return fail(err)
	}
	row.Output = int(*l.OutputTokens)
	if l.Prompt != nil {
		row.Prompt = *l.Prompt
	}
	if l.InputTokens != nil {
		if err := checkTokens(`"input_tokens"`, *l.InputTokens); err != nil {
			return fail(err)
		}
		row.Input = int(*l.InputTokens)
	} else {
		row.Input = tokenizer.Count(row.Prompt)
	}
	if len(l.HashIDs) > maxHashIDs {
		return fail(fmt.Errorf(`"hash_ids" holds %d ids, more than %d`, len(l.HashIDs), maxHashIDs))
	}
	if len(l.HashIDs) > 0 {
		if row.Prompt != "" {
			return fail(errors.New(`a row has a "prompt" or "hash_ids", not both: the ids would build another prompt`))
		}
		row.HashIDs = l.HashIDs
	}
	return row, own, skipReason(row.Input, row.Output), nil
}
