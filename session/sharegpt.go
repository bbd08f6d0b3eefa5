package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// Reasons a ShareGPT conversation is skipped.
const (
	skipNoTurn      = "without a human turn answered by a gpt turn"
	skipShortInput  = "with a first prompt below --sharegpt-min-input-len"
	skipLongInput   = "with a first prompt above --sharegpt-max-input-len"
	skipShortOutput = "with a first reply below --sharegpt-min-output-len"
	skipLongTotal   = "whose first turn is above --sharegpt-max-total-len"
)

// shareGPTEntry is what a session needs of a ShareGPT entry.
type shareGPTEntry struct {
	ID            json.RawMessage `json:"id"`
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// ReadShareGPT reads a ShareGPT file (a JSON array of {"id",
// "conversations": [{"from", "value"}, …]}) as sessions: each human turn
// answered by a gpt turn is a session turn, its user message the human
// text and its output length the reply's length on the built-in tokenizer
// (or --sharegpt-output-len); the replies themselves are not sent, the
// server's live replies take their place in the history. A leading system
// turn becomes the system prompt, and turns before the first human one (a
// greeting) are left out. Turns are kept in order up to the first
// that breaks the pattern, up to c.MaxTurns, and while the whole context
// (history, message and reply) fits --sharegpt-max-total-len. The first
// turn must pass the single-turn filters (--sharegpt-min-input-len,
// --sharegpt-max-input-len, --sharegpt-min-output-len) or the
// conversation is skipped. Turns take --think-time, ShareGPT having no
// times. name labels errors, which give the entry's index and byte offset.
func ReadShareGPT(r io.Reader, name string, wc workload.Config, c Config) (Source, error) {
	label := "sharegpt " + name
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a JSON array of conversations", label)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%s: want a JSON array of conversations", label)
	}
	col := newCollector(wc)
	ids := map[string]bool{}
	for i := 0; dec.More(); i++ {
		col.entry()
		var ent shareGPTEntry
		if err := dec.Decode(&ent); err != nil {
			return nil, fmt.Errorf("%s: entry %d (byte %d): %w", label, i, dec.InputOffset(), jsonerr.Plain(err))
		}
		e, reason := shareGPTSession(ent, i, wc, c)
		if reason != "" {
			col.skip(reason)
			continue
		}
		e.flow.ID = uniqueID(ids, e.flow.ID, i)
		col.add(e)
	}
	if _, err := dec.Token(); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: after entry %d (byte %d): %w", label, col.stats.Entries, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: unexpected data after the array", label, dec.InputOffset())
	}
	return col.list(label, KindSession, wc, c)
}

func isHuman(from string) bool { return from == "human" || from == "user" }
func isGPT(from string) bool   { return from == "gpt" || from == "assistant" || from == "chatgpt" }

// shareGPTSession turns entry i into a session, or says why it is skipped.
func shareGPTSession(ent shareGPTEntry, i int, wc workload.Config, c Config) (entry, string) {
	s := wc.ShareGPT
	id, err := flowID(ent.ID, i)
	if err != nil || strings.HasPrefix(id, "line ") {
		id = fmt.Sprintf("entry %d", i)
	}
	e := entry{flow: Flow{ID: id, Kind: KindSession}, index: i}
	turns := ent.Conversations
	if len(turns) > 0 && turns[0].From == RoleSystem {
		e.flow.System, turns = turns[0].Value, turns[1:]
	}
	for len(turns) > 0 && !isHuman(turns[0].From) {
		turns = turns[1:] // a greeting before the user speaks opens no turn
	}
	context := tokenizer.Count(e.flow.System)
	for k := 0; k+1 < len(turns); k += 2 {
		if !isHuman(turns[k].From) || !isGPT(turns[k+1].From) || turns[k].Value == "" {
			break
		}
		if c.MaxTurns > 0 && len(e.flow.Calls) == c.MaxTurns || len(e.flow.Calls) == MaxCalls {
			break
		}
		in := tokenizer.Count(turns[k].Value)
		reply := tokenizer.Count(turns[k+1].Value)
		out := s.OutputLen
		if out == 0 {
			out = reply
		}
		if len(e.flow.Calls) == 0 {
			switch {
			case in < s.MinInputLen:
				return entry{}, skipShortInput
			case in > s.MaxInputLen:
				return entry{}, skipLongInput
			case s.OutputLen == 0 && out < max(s.MinOutputLen, 1):
				return entry{}, skipShortOutput
			case context+in+out > s.MaxTotalLen:
				return entry{}, skipLongTotal
			}
		} else if out < 1 || context+in+out > s.MaxTotalLen {
			break
		}
		call := Call{Text: turns[k].Value, InputTokens: in, OutputTokens: out}
		if wc.Request.MaxTokens > 0 {
			call.OutputTokens = min(call.OutputTokens, wc.Request.MaxTokens)
		}
		if k := len(e.flow.Calls); k > 0 {
			call.After = []Dep{{Call: k - 1}}
			e.drawn = append(e.drawn, k)
		}
		e.flow.Calls = append(e.flow.Calls, call)
		// The dataset's reply stands in for the live one in the budget.
		context += in + reply
	}
	if len(e.flow.Calls) == 0 {
		return entry{}, skipNoTurn
	}
	return e, ""
}
