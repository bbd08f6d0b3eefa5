package session

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Kind says what a Flow models.
type Kind int

// Flow kinds.
const (
	KindSession Kind = iota // a multi-turn conversation: a chain of turns
	KindTask                // an agent task: a graph of calls
)

// String names the kind in the singular: "session", "task".
func (k Kind) String() string {
	if k == KindTask {
		return "task"
	}
	return "session"
}

// Flow is one session or agent task.
type Flow struct {
	// ID names the flow in records and in the session header; it is
	// unique in a run (a cycled dataset's repeats get a suffix).
	ID   string
	Kind Kind
	// System, when not empty, opens every conversation of the flow as a
	// system message: a shared system prompt.
	System string
	// Calls are the flow's LLM calls, each after every call it waits for.
	Calls []Call
}

// Call is one LLM call of a flow: a session's turn, a task's step.
type Call struct {
	// ID names the call in records: a task's call id; empty for a session
	// turn, which is known by its number.
	ID string
	// After lists the calls this one waits for, by index below its own: it
	// is sent when the last of them ended plus its Wait. A session turn
	// waits for the turn before it, Wait being the think time.
	After []Dep
	// Delay is when a call that waits for nothing is sent, after the flow
	// starts.
	Delay time.Duration
	// Fresh makes the call start a new conversation (the system prompt and
	// its own Text) instead of continuing the one its first dependency
	// ended with.
	Fresh bool
	// Text is the user message the call adds to the conversation, and
	// InputTokens its length on the built-in tokenizer.
	Text        string
	InputTokens int
	// OutputTokens is how many tokens to ask for (max_tokens).
	OutputTokens int
}

// Dep says a call waits for call Call of the same flow, then Wait more.
type Dep struct {
	Call int
	Wait time.Duration
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Conversation is the messages of one call, in order.
type Conversation []Message

// Prompt returns the conversation call j sends. done holds, for every call
// j waits for, the conversation that call ended with (see Reply); other
// entries are not read.
//
// A call that waits for nothing, or is Fresh, sends the system prompt
// (when there is one) and its Text. Any other call continues the
// conversation of its first dependency: that call's messages and reply,
// then one user message holding the replies of its other dependencies
// (each introduced by its call's id, as an agent hands a tool's or
// sub-agent's result back) and its own Text. One message, not several:
// some chat templates refuse two user messages in a row.
func (f *Flow) Prompt(j int, done []Conversation) Conversation {
	c := f.Calls[j]
	if c.Fresh || len(c.After) == 0 {
		var conv Conversation
		if f.System != "" {
			conv = append(conv, Message{Role: RoleSystem, Content: f.System})
		}
		return append(conv, Message{Role: RoleUser, Content: c.Text})
	}
	base := done[c.After[0].Call]
	conv := make(Conversation, len(base), len(base)+1)
	copy(conv, base)
	var parts []string
	for _, d := range c.After[1:] {
		reply := done[d.Call].LastReply()
		parts = append(parts, fmt.Sprintf("[%s]\n%s", f.callName(d.Call), reply))
	}
	parts = append(parts, c.Text)
	return append(conv, Message{Role: RoleUser, Content: strings.Join(parts, "\n\n")})
}

// callName names call i in a result handed to another call.
func (f *Flow) callName(i int) string {
	if id := f.Calls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("call %d", i+1)
}

// Reply returns prompt followed by the assistant's reply: the conversation
// a call ended with, which the calls waiting for it continue.
func Reply(prompt Conversation, reply string) Conversation {
	out := make(Conversation, len(prompt), len(prompt)+1)
	copy(out, prompt)
	return append(out, Message{Role: RoleAssistant, Content: reply})
}

// LastReply returns the content of c's last assistant message, "" when it
// has none.
func (c Conversation) LastReply() string {
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].Role == RoleAssistant {
			return c[i].Content
		}
	}
	return ""
}

// textSep separates messages in a conversation sent as plain text.
const textSep = "\n\n"

// Text renders c as one text prompt, for servers that take text: the
// messages' contents joined by blank lines. A call that continues another's
// conversation therefore begins with exactly that call's prompt and reply,
// which a server's prefix cache can reuse.
func (c Conversation) Text() string {
	var b strings.Builder
	for i, m := range c {
		if i > 0 {
			b.WriteString(textSep)
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// Tokens returns the length of c's Text on the built-in tokenizer.
func (c Conversation) Tokens() int { return tokenizer.Count(c.Text()) }

// Validate reports the first problem of f: no calls, a dependency that
// does not come before its call, a negative time, an output of no tokens.
func (f *Flow) Validate() error {
	if len(f.Calls) == 0 {
		return errors.New("no calls")
	}
	for j, c := range f.Calls {
		if c.Delay < 0 {
			return fmt.Errorf("%s: delay %v is negative", f.callName(j), c.Delay)
		}
		if c.OutputTokens < 1 {
			return fmt.Errorf("%s: asks for %d output tokens, want at least 1", f.callName(j), c.OutputTokens)
		}
		for _, d := range c.After {
			if d.Call < 0 || d.Call >= j {
				return fmt.Errorf("%s waits for call %d, which does not come before it", f.callName(j), d.Call+1)
			}
			if d.Wait < 0 {
				return fmt.Errorf("%s: wait %v is negative", f.callName(j), d.Wait)
			}
		}
	}
	return nil
}
