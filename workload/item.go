package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Item is the content of one request.
type Item struct {
	// Prompt is the prompt text, sent as the completion prompt or as the
	// single user message of a chat request.
	Prompt string
	// PromptTokenIDs are the built-in tokenizer's ids of Prompt, set by
	// sources that generate token ids (random) for servers that accept a
	// list of ids as the prompt; nil for text datasets. They are not any
	// real model's ids.
	PromptTokenIDs []int
	// InputTokens is the prompt's length in tokens: the built-in
	// tokenizer's count, the dataset's own "input_len", or, for a calibrated
	// random source and a source sized by a Fit, the target length on the
	// server's tokenizer.
	InputTokens int
	// OutputTokens is the number of tokens to ask for (max_tokens): the
	// expected output length.
	OutputTokens int
	// ReusableTokens is how many of the prompt's tokens a prefix cache
	// holding every earlier request's prompt would serve, where the
	// dataset knows it (a trace with hash ids, see Trace); 0 otherwise.
	ReusableTokens int
	// Group names the prefix group the prompt belongs to (a system prompt,
	// a shared prefix) for per-group statistics; "" for none.
	Group string
	// System is the system prompt Prompt begins with, which a chat
	// request sends as a message of its own (see Messages); "" for none.
	System string
	// SystemSep is what Prompt puts between System and the user's text,
	// which neither chat message holds (see Messages); "" for none.
	SystemSep string
	// EmptySystem marks a conversation that opens with a system message
	// holding nothing, as vLLM sends an MLPerf row whose system prompt is
	// empty: Messages gives that message before the prompt. It matters
	// only while System is "".
	EmptySystem bool
	// Conversation, when set, is the whole conversation a chat request
	// sends (a BFCL row's first turn, system message included), Prompt
	// then its last message's text; Messages returns it as it is.
	Conversation []Message
	// Tools is the JSON array of OpenAI tool definitions a chat request
	// sends with the conversation (BFCL's functions); nil for none.
	Tools json.RawMessage
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Messages returns the item as a chat conversation: Conversation when it
// is set; else the prompt as the one user message, after its system
// prompt as a system message when it has one (an empty one where
// EmptySystem says so), the separator between them in neither.
func (it Item) Messages() []Message {
	if len(it.Conversation) > 0 {
		return it.Conversation
	}
	if head := it.System + it.SystemSep; it.System != "" && strings.HasPrefix(it.Prompt, head) {
		return []Message{{Role: "system", Content: it.System}, {Role: "user", Content: it.Prompt[len(head):]}}
	}
	if it.EmptySystem && it.System == "" {
		return []Message{{Role: "system", Content: ""}, {Role: "user", Content: it.Prompt}}
	}
	return []Message{{Role: "user", Content: it.Prompt}}
}

// Source supplies the request content of a run.
type Source interface {
	// Item returns the content of the request with sequence number seq
	// (≥ 0). It depends only on the source's configuration and seq, and is
	// safe for concurrent use. Finite datasets cycle: seq and seq + Len()
	// give the same item.
	Item(seq int64) Item
	// Len returns the number of distinct items, or 0 for a source that
	// generates items without end.
	Len() int
	// String describes the source for --dry-run.
	String() string
}

// Items returns the items of sequence numbers 0 … n−1, for callers that
// prepare a whole run's content before sending anything.
func Items(s Source, n int) []Item {
	out := make([]Item, max(n, 0))
	for i := range out {
		out[i] = s.Item(int64(i))
	}
	return out
}

// Request holds the request-level options that apply to every item; the
// runner reads them when it builds each request body.
type Request struct {
	// IgnoreEOS asks the server to keep generating past end-of-sequence
	// (--ignore-eos), so that outputs have exactly OutputTokens tokens.
	IgnoreEOS bool
	// MinTokens asks for at least this many output tokens (--min-tokens);
	// 0 means the field is not sent.
	MinTokens int
	// MaxTokens caps every item's OutputTokens (--max-tokens); 0 = no cap.
	// Sources apply it, so Item.OutputTokens already respects it.
	MaxTokens int
}

// Validate reports every problem of the options, each naming its flag.
func (r Request) Validate() error {
	var errs []error
	if r.MinTokens < 0 {
		errs = append(errs, fmt.Errorf("--min-tokens must be ≥ 0, got %d", r.MinTokens))
	}
	if r.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("--max-tokens must be ≥ 0, got %d", r.MaxTokens))
	}
	if r.MaxTokens > 0 && r.MinTokens > r.MaxTokens {
		errs = append(errs, fmt.Errorf("--min-tokens %d exceeds --max-tokens %d", r.MinTokens, r.MaxTokens))
	}
	return errors.Join(errs...)
}

// MinTokensFor returns the min_tokens to send with it: MinTokens, lowered to
// the item's OutputTokens because servers reject min_tokens > max_tokens.
// 0 means do not send the field.
func (r Request) MinTokensFor(it Item) int {
	return min(r.MinTokens, it.OutputTokens)
}

// capOutput applies the MaxTokens cap to an output length.
func (r Request) capOutput(n int) int {
	if r.MaxTokens > 0 {
		return min(n, r.MaxTokens)
	}
	return n
}
