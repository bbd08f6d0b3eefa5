package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// MaxCustomLine bounds one line of a custom JSONL file.
const MaxCustomLine = 64 << 20

// customLine is one line of a custom dataset. Pointers tell a missing field
// from a zero one.
type customLine struct {
	Prompt    *string `json:"prompt"`
	OutputLen *int    `json:"output_len"`
	InputLen  *int    `json:"input_len"`
	// OutputTokens is vLLM's name for a line's output length, which its
	// client reads only for --custom-output-len -1: it is decoded only
	// then, so that a line whose field would not be read cannot fail.
	OutputTokens json.RawMessage `json:"output_tokens"`
}

// CustomOutputFromLines is the --custom-output-len that takes every
// line's output length from the line itself, as vLLM's client does for -1.
const CustomOutputFromLines = -1

// ReadCustom reads a custom dataset: JSON Lines, one object per line with a
// non-empty "prompt", an optional "output_len" (tokens to ask for; default
// c.Custom.OutputLen) and an optional "input_len" (the prompt's length on
// the server's tokenizer, if known; default: the built-in tokenizer's
// count). With c.Custom.OutputLen CustomOutputFromLines every line must
// give its length, as "output_len" or as vLLM's "output_tokens"; otherwise
// "output_tokens" is ignored, as vLLM ignores it. Other fields are ignored;
// blank lines are skipped. Any other malformed line is an error naming
// name:line, because a silently dropped line would change the workload.
// name labels errors.
func ReadCustom(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "custom " + name
	col := newCollector(c)
	err := EachLine(r, name, func(_ int, text []byte) error {
		col.entry()
		it, err := c.customItem(text)
		if err != nil {
			return err
		}
		col.add(it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return col.dataset(label)
}

// customItem parses and checks one non-blank line.
func (c Config) customItem(text []byte) (Item, error) {
	var l customLine
	if err := jsonerr.Unmarshal(text, &l); err != nil {
		return Item{}, jsonerr.Plain(err)
	}
	switch {
	case l.Prompt == nil:
		return Item{}, errors.New(`missing "prompt"`)
	case *l.Prompt == "":
		return Item{}, errors.New(`"prompt" is empty`)
	}
	it := Item{Prompt: *l.Prompt, OutputTokens: c.Custom.OutputLen}
	own, key := l.OutputLen, "output_len"
	if own == nil && c.Custom.OutputLen == CustomOutputFromLines {
		key = "output_tokens"
		if len(l.OutputTokens) > 0 && string(l.OutputTokens) != "null" {
			own = new(int)
			if err := json.Unmarshal(l.OutputTokens, own); err != nil {
				return Item{}, fmt.Errorf(`"output_tokens": %w`, jsonerr.Plain(err))
			}
		}
		if own == nil {
			return Item{}, errors.New(`no output length: --custom-output-len -1 takes each line's "output_tokens" (or "output_len")`)
		}
	}
	if own != nil {
		if *own < 1 || *own > MaxOutputTokens {
			return Item{}, fmt.Errorf(`%q must be in [1, %d], got %d`, key, MaxOutputTokens, *own)
		}
		it.OutputTokens = *own
	}
	it.OutputTokens = c.Request.capOutput(it.OutputTokens)
	if l.InputLen != nil {
		if *l.InputLen < 1 {
			return Item{}, fmt.Errorf(`"input_len" must be ≥ 1, got %d`, *l.InputLen)
		}
		it.InputTokens = *l.InputLen
	} else {
		it.InputTokens = tokenizer.Count(it.Prompt)
	}
	return it, nil
}
