package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Request describes one completion to ask for, independent of protocol.
// Each adapter sends what its protocol can express and fails (in
// BuildRequest) on a setting it cannot, rather than quietly measuring a
// different workload.
type Request struct {
	// Model is the model name; sent when non-empty (Ollama requires it,
	// TGI ignores it).
	Model string
	// Prompt is the prompt text.
	Prompt string
	// PromptTokenIDs, when set, is sent instead of Prompt by the protocols
	// that accept token ids (OpenAI completions, llama.cpp), as a list of
	// ints. The others send Prompt and fail when only ids are given.
	PromptTokenIDs []int
	// Messages, when set, is sent by openai-chat instead of Prompt (one user
	// message). Other protocols reject it.
	Messages []Message
	// Tools, when set, is a JSON array of OpenAI tool definitions that
	// openai-chat sends as the body's tools, with tool_choice "auto", as
	// vLLM sends the BFCL dataset's functions. Other protocols reject it.
	Tools json.RawMessage
	// MaxTokens caps the output tokens; 0 leaves the server's default.
	MaxTokens int
	// MinTokens asks for at least this many output tokens (vLLM's
	// min_tokens); 0 means unset.
	MinTokens int
	// IgnoreEOS asks the server to keep generating past the end-of-sequence
	// token, so that outputs have the requested length.
	IgnoreEOS bool
	// Extra is merged into the JSON body last (from --extra-body): a key
	// here replaces the adapter's, objects merge key by key, and a null
	// removes the key (e.g. {"max_completion_tokens": null, "max_tokens":
	// 128} for a chat server that only knows max_tokens). BuildRequest does
	// not modify it.
	Extra map[string]any
	// Headers are added to the HTTP request, replacing the adapter's own
	// (Content-Type, Accept, Accept-Encoding) of the same name; put
	// "Authorization: Bearer …" here. A Host header sets the request's
	// Host.
	Headers http.Header

	// Sampling parameters, sent in the protocol's own fields (see
	// Sampling); a protocol without a field for one that is set fails.
	Sampling Sampling
	// Logprobs asks for this many log probabilities per token (OpenAI
	// completions' logprobs, chat's top_logprobs, llama.cpp's n_probs);
	// nil sends nothing.
	Logprobs *int
	// ChatTemplateKwargs are sent as chat_template_kwargs, for the server
	// to apply its chat template with (openai-chat only).
	ChatTemplateKwargs map[string]any
	// RequestID, when set, is sent as the x-request-id header, after
	// Headers, as vLLM's client does.
	RequestID string
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

var errNoPrompt = errors.New("request has no prompt (set Prompt, PromptTokenIDs or Messages)")

// validate checks what holds for every protocol.
func (r *Request) validate() error {
	if r.MaxTokens < 0 {
		return fmt.Errorf("max tokens %d is negative", r.MaxTokens)
	}
	if r.MinTokens < 0 {
		return fmt.Errorf("min tokens %d is negative", r.MinTokens)
	}
	if r.MaxTokens > 0 && r.MinTokens > r.MaxTokens {
		return fmt.Errorf("min tokens %d exceeds max tokens %d", r.MinTokens, r.MaxTokens)
	}
	for i, id := range r.PromptTokenIDs {
		if id < 0 {
			return fmt.Errorf("prompt token id %d at position %d is negative", id, i)
		}
	}
	for i, m := range r.Messages {
		if m.Role == "" {
			return fmt.Errorf("message %d has no role", i)
		}
	}
	return nil
}

// mergeExtra merges extra into body: objects merge recursively, null
// deletes, anything else replaces. Maps of extra are copied, never
// written, so one Extra can serve every request of a run.
func mergeExtra(body, extra map[string]any) {
	for k, v := range extra {
		if v == nil {
			delete(body, k)
			continue
		}
		src, srcIsMap := v.(map[string]any)
		dst, dstIsMap := body[k].(map[string]any)
		switch {
		case srcIsMap && dstIsMap:
			mergeExtra(dst, src)
		case srcIsMap:
			c := make(map[string]any, len(src))
			mergeExtra(c, src)
			body[k] = c
		default:
			body[k] = v
		}
	}
}
