package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// MaxLine bounds one line of a sessions or tasks file.
const MaxLine = workload.MaxCustomLine

// sessionLine is one line of a sessions file. Pointers tell a missing
// field from a zero one.
type sessionLine struct {
	ID        json.RawMessage `json:"id"`
	System    *string         `json:"system"`
	SystemLen *int            `json:"system_len"`
	Turns     []turnLine      `json:"turns"`
}

type turnLine struct {
	Prompt    *string  `json:"prompt"`
	InputLen  *int     `json:"input_len"`
	OutputLen *int     `json:"output_len"`
	ThinkMS   *float64 `json:"think_ms"`
}

// ReadSessions reads the sessions format: JSON Lines, one session per
// line,
//
//	{"id": "chat-1", "system": "You are terse.", "turns": [
//	  {"prompt": "What is a KV cache?", "output_len": 120},
//	  {"prompt": "And paging?", "output_len": 80, "think_ms": 4000},
//	  {"input_len": 300, "output_len": 60, "think_ms": 1500}]}
//
// Each turn gives its user message as "prompt", or as "input_len" tokens
// of made-up text; "output_len" is the reply's length to ask for (default
// --custom-output-len); "think_ms" is the user's think time after the
// previous reply ended (ignored on the first turn; --think-time draws it
// where a later turn gives none). "id" (a string or a number; default
// "line N") names the session, "system" or "system_len" opens it with a
// system prompt. Other fields are ignored and blank lines skipped; any
// other malformed line is an error naming name:line. Sessions longer than
// c.MaxTurns are cut to it.
func ReadSessions(r io.Reader, name string, wc workload.Config, c Config) (Source, error) {
	col := newCollector(wc)
	ids := map[string]bool{}
	err := workload.EachLine(r, name, func(line int, text []byte) error {
		col.entry()
		var l sessionLine
		if err := jsonerr.Unmarshal(text, &l); err != nil {
			return jsonerr.Plain(err)
		}
		e, err := l.entry(line, wc, c)
		if err != nil {
			return err
		}
		e.flow.ID = uniqueID(ids, e.flow.ID, line)
		col.add(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return col.list("sessions "+name, KindSession, wc, c)
}

func (l *sessionLine) entry(line int, wc workload.Config, c Config) (entry, error) {
	id, err := flowID(l.ID, line)
	if err != nil {
		return entry{}, err
	}
	e := entry{flow: Flow{ID: id, Kind: KindSession}, index: line}
	if e.flow.System, e.systemLen, err = system(l.System, l.SystemLen); err != nil {
		return entry{}, err
	}
	if len(l.Turns) == 0 {
		return entry{}, errors.New(`"turns" is missing or empty`)
	}
	turns := l.Turns
	if c.MaxTurns > 0 && len(turns) > c.MaxTurns {
		turns = turns[:c.MaxTurns]
	}
	if len(turns) > MaxCalls {
		return entry{}, fmt.Errorf("%d turns: more than the limit of %d", len(turns), MaxCalls)
	}
	for k, t := range turns {
		call, err := message(t.Prompt, t.InputLen, t.OutputLen, wc)
		if err != nil {
			return entry{}, fmt.Errorf("turn %d: %w", k+1, err)
		}
		if k == 0 && t.ThinkMS != nil {
			// No wait comes before a first turn, but a bad value is
			// still one.
			if _, err := millis("think_ms", *t.ThinkMS); err != nil {
				return entry{}, fmt.Errorf("turn 1: %w", err)
			}
		}
		if k > 0 {
			call.After = []Dep{{Call: k - 1}}
			switch {
			case t.ThinkMS == nil:
				e.drawn = append(e.drawn, k)
			default:
				if call.After[0].Wait, err = millis("think_ms", *t.ThinkMS); err != nil {
					return entry{}, fmt.Errorf("turn %d: %w", k+1, err)
				}
			}
		}
		e.flow.Calls = append(e.flow.Calls, call)
	}
	return e, nil
}

// taskLine is one line of a tasks file.
type taskLine struct {
	ID        json.RawMessage `json:"id"`
	System    *string         `json:"system"`
	SystemLen *int            `json:"system_len"`
	Calls     []callLine      `json:"calls"`
}

type callLine struct {
	ID        *string   `json:"id"`
	After     *[]string `json:"after"`
	Prompt    *string   `json:"prompt"`
	InputLen  *int      `json:"input_len"`
	OutputLen *int      `json:"output_len"`
	ToolMS    *float64  `json:"tool_ms"`
	DelayMS   *float64  `json:"delay_ms"`
	Fresh     bool      `json:"fresh"`
}

// ReadTasks reads the agent task format: JSON Lines, one task per line,
// a graph of LLM calls,
//
//	{"id": "t1", "system": "You are a research agent.", "calls": [
//	  {"id": "plan", "prompt": "Plan the search.", "output_len": 200, "tool_ms": 1200},
//	  {"id": "read-a", "after": ["plan"], "input_len": 400, "output_len": 80, "fresh": true},
//	  {"id": "read-b", "after": ["plan"], "input_len": 900, "output_len": 60, "tool_ms": 300},
//	  {"id": "answer", "after": ["read-a", "read-b"], "input_len": 50, "output_len": 300}]}
//
// A call is sent when every call in its "after" has ended plus that
// call's "tool_ms" (the tool it invoked runs that long): above, read-a and
// read-b fan out 1.2 s after plan ends and answer joins them. "after"
// names earlier calls; without it a call waits for the call before it
// (the first for nothing), so a plain chain of steps needs no "after" at
// all, and "after": [] starts a call with the task, "delay_ms" after it.
// A call continues the conversation of the first call in its "after"
// (that call's prompt and reply, then the other calls' replies and its
// own message), or starts afresh from the system prompt with "fresh".
// The message is "prompt", or "input_len" tokens of made-up text;
// "output_len" defaults to --custom-output-len. "id" names a call
// (default c1, c2, …) and, on the line, the task (default "line N").
// Other fields are ignored; a malformed line is an error naming
// name:line.
func ReadTasks(r io.Reader, name string, wc workload.Config, c Config) (Source, error) {
	col := newCollector(wc)
	ids := map[string]bool{}
	err := workload.EachLine(r, name, func(line int, text []byte) error {
		col.entry()
		var l taskLine
		if err := jsonerr.Unmarshal(text, &l); err != nil {
			return jsonerr.Plain(err)
		}
		e, err := l.entry(line, wc)
		if err != nil {
			return err
		}
		e.flow.ID = uniqueID(ids, e.flow.ID, line)
		col.add(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return col.list("agent tasks "+name, KindTask, wc, c)
}

func (l *taskLine) entry(line int, wc workload.Config) (entry, error) {
	id, err := flowID(l.ID, line)
	if err != nil {
		return entry{}, err
	}
	e := entry{flow: Flow{ID: id, Kind: KindTask}, index: line}
	if e.flow.System, e.systemLen, err = system(l.System, l.SystemLen); err != nil {
		return entry{}, err
	}
	if len(l.Calls) == 0 {
		return entry{}, errors.New(`"calls" is missing or empty`)
	}
	if len(l.Calls) > MaxCalls {
		return entry{}, fmt.Errorf("%d calls: more than the limit of %d", len(l.Calls), MaxCalls)
	}
	index := map[string]int{}
	tool := make([]time.Duration, len(l.Calls))
	for j, cl := range l.Calls {
		cid := fmt.Sprintf("c%d", j+1)
		if cl.ID != nil {
			if *cl.ID == "" {
				return entry{}, fmt.Errorf("call %d: \"id\" is empty", j+1)
			}
			cid = *cl.ID
		}
		if _, dup := index[cid]; dup {
			return entry{}, fmt.Errorf("call %d: id %q is used twice", j+1, cid)
		}
		call, err := message(cl.Prompt, cl.InputLen, cl.OutputLen, wc)
		if err != nil {
			return entry{}, fmt.Errorf("call %q: %w", cid, err)
		}
		call.ID, call.Fresh = cid, cl.Fresh
		if cl.ToolMS != nil {
			if tool[j], err = millis("tool_ms", *cl.ToolMS); err != nil {
				return entry{}, fmt.Errorf("call %q: %w", cid, err)
			}
		}
		var after []string
		switch {
		case cl.After != nil:
			after = *cl.After
		case j > 0:
			after = []string{*l.Calls[j-1].idOr(j)}
		}
		for i, a := range after {
			d, ok := index[a]
			if !ok {
				return entry{}, fmt.Errorf("call %q: \"after\" names %q, which is not a call before it", cid, a)
			}
			if slices.Contains(after[:i], a) {
				// Its reply would join the conversation twice.
				return entry{}, fmt.Errorf("call %q: \"after\" names %q twice", cid, a)
			}
			call.After = append(call.After, Dep{Call: d, Wait: tool[d]})
		}
		if cl.DelayMS != nil {
			if len(call.After) > 0 {
				return entry{}, fmt.Errorf("call %q: \"delay_ms\" applies to a call that waits for nothing (\"after\": [])", cid)
			}
			if call.Delay, err = millis("delay_ms", *cl.DelayMS); err != nil {
				return entry{}, fmt.Errorf("call %q: %w", cid, err)
			}
		}
		index[cid] = j
		e.flow.Calls = append(e.flow.Calls, call)
	}
	return e, nil
}

// idOr returns the call's id, or the default one of call j−1's position.
func (cl callLine) idOr(j int) *string {
	if cl.ID != nil {
		return cl.ID
	}
	s := fmt.Sprintf("c%d", j)
	return &s
}

// message reads a call's user message and output length.
func message(prompt *string, inputLen, outputLen *int, wc workload.Config) (Call, error) {
	var c Call
	switch {
	case prompt != nil && inputLen != nil:
		return Call{}, errors.New(`give "prompt" or "input_len", not both`)
	case prompt != nil && *prompt != "":
		c.Text, c.InputTokens = *prompt, tokenizer.Count(*prompt)
	case prompt != nil:
		return Call{}, errors.New(`"prompt" is empty`)
	case inputLen != nil:
		if *inputLen < 1 || *inputLen > workload.MaxPromptTokens {
			return Call{}, fmt.Errorf(`"input_len" must be in [1, %d], got %d`, workload.MaxPromptTokens, *inputLen)
		}
		c.InputTokens = *inputLen
	default:
		return Call{}, errors.New(`give the user message as "prompt" or its length as "input_len"`)
	}
	c.OutputTokens = wc.Custom.OutputLen
	if outputLen != nil {
		if *outputLen < 1 || *outputLen > workload.MaxOutputTokens {
			return Call{}, fmt.Errorf(`"output_len" must be in [1, %d], got %d`, workload.MaxOutputTokens, *outputLen)
		}
		c.OutputTokens = *outputLen
	}
	if wc.Request.MaxTokens > 0 {
		c.OutputTokens = min(c.OutputTokens, wc.Request.MaxTokens)
	}
	return c, nil
}

// system reads a flow's system prompt, given as text or as a length.
func system(text *string, n *int) (string, int, error) {
	switch {
	case text != nil && n != nil:
		return "", 0, errors.New(`give "system" or "system_len", not both`)
	case text != nil:
		return *text, 0, nil
	case n != nil:
		if *n < 0 || *n > workload.MaxPromptTokens {
			return "", 0, fmt.Errorf(`"system_len" must be in [0, %d], got %d`, workload.MaxPromptTokens, *n)
		}
		return "", *n, nil
	}
	return "", 0, nil
}

// flowID reads a flow's "id": a string or a number, "line N" when absent.
func flowID(raw json.RawMessage, line int) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "line " + strconv.Itoa(line), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", errors.New(`"id" is empty`)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", errors.New(`"id" must be a string or a number`)
	}
	return n.String(), nil
}

// uniqueID returns id, or id@line when an earlier flow took it, so that
// records group by flow however the file names them.
func uniqueID(seen map[string]bool, id string, line int) string {
	if seen[id] {
		id = fmt.Sprintf("%s@%d", id, line)
	}
	seen[id] = true
	return id
}

// millis reads a time in milliseconds, fractional or whole.
func millis(key string, v float64) (time.Duration, error) {
	if math.IsNaN(v) || v < 0 || v > float64(MaxThink/time.Millisecond) {
		return 0, fmt.Errorf("%q %v is outside [0, %d] ms", key, v, MaxThink/time.Millisecond)
	}
	return time.Duration(math.Round(v * float64(time.Millisecond))), nil
}
