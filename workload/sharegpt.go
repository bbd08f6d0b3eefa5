package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// Reasons a ShareGPT conversation is skipped.
const (
	skipNoReply     = "with fewer than two turns"
	skipShortInput  = "with a prompt below --sharegpt-min-input-len"
	skipShortOutput = "with a reply below --sharegpt-min-output-len"
	skipLongInput   = "with a prompt above --sharegpt-max-input-len"
	skipLongTotal   = "above --sharegpt-max-total-len"
)

// ReadShareGPT reads a ShareGPT file: a JSON array of
// {"id", "conversations": [{"from": "human"|"gpt", "value"}, …]}. As vLLM
// reads it, each conversation's first turn becomes the prompt and the
// length of its second (on the built-in tokenizer) the output length,
// whoever spoke them. Conversations of fewer than two turns, or whose
// lengths fall outside c.ShareGPT's bounds, are skipped and counted in the
// dataset's stats.
//
// The file is decoded one conversation at a time, and only the first turns
// of each are materialised, so a multi-gigabyte file costs little more
// memory than the items kept. name labels errors, which give the entry's
// index and byte offset.
func ReadShareGPT(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "sharegpt " + name
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a JSON array of conversations", label)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON, want a JSON array of conversations (byte %d: %w)", label, dec.InputOffset()+1, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%s: want a JSON array of conversations, got %v", label, describe(tok))
	}
	col := newCollector(c)
	for i := 0; dec.More(); i++ {
		col.entry()
		conv, err := readConversation(dec)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d (byte %d): %w", label, i, dec.InputOffset(), err)
		}
		if reason, it := c.shareGPTItem(conv); reason != "" {
			col.skip(reason)
		} else {
			col.add(it)
		}
	}
	if _, err := token(dec); err != nil { // the closing ']'
		return nil, fmt.Errorf("%s: after entry %d (byte %d): %w", label, col.stats.Entries, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: unexpected data after the array", label, dec.InputOffset())
	}
	return col.dataset(label)
}

// conversation is what goodput needs of a ShareGPT entry.
type conversation struct {
	prompt, reply string
	replied       bool // the conversation has a second turn
}

// turn is one message of a conversation.
type turn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// readConversation decodes one entry object, skipping everything but the
// turns it needs without materialising them.
func readConversation(dec *json.Decoder) (conversation, error) {
	var conv conversation
	if err := expectDelim(dec, '{', "an object"); err != nil {
		return conv, err
	}
	var seen []string // the entry's keys so far: a few
	for dec.More() {
		key, err := token(dec)
		if err != nil {
			return conv, err
		}
		k, _ := key.(string)
		if slices.Contains(seen, k) {
			return conv, fmt.Errorf("key %q appears twice: which value is meant cannot be told", k)
		}
		seen = append(seen, k)
		if key != "conversations" {
			if err := skipValue(dec); err != nil {
				return conv, err
			}
			continue
		}
		if err := readTurns(dec, &conv); err != nil {
			return conv, fmt.Errorf("conversations: %w", err)
		}
	}
	_, err := token(dec) // the closing '}'
	return conv, err
}

// readTurns reads a conversations array into conv: its first two turns,
// whatever their roles, as vLLM takes them (the first is the prompt, the
// second the reply whose length is asked for).
func readTurns(dec *json.Decoder, conv *conversation) error {
	tok, err := token(dec)
	if err != nil {
		return err
	}
	if tok == nil { // "conversations": null holds no turns
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array of turns, got %v", describe(tok))
	}
	for i := 0; dec.More(); i++ {
		if i >= 2 {
			if err := skipValue(dec); err != nil {
				return err
			}
			continue
		}
		// A turn is decoded as vLLM's json.load reads it, a key given
		// twice its last value: checking each turn's keys would cost half
		// again the reading of the largest dataset there is.
		var t turn
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("turn %d: %w", i, jsonerr.Plain(err))
		}
		if i == 0 {
			conv.prompt = t.Value
		} else {
			conv.reply, conv.replied = t.Value, true
		}
	}
	_, err = token(dec) // the closing ']'
	return err
}

// shareGPTItem applies the length filters to conv. It returns the reason
// the conversation is skipped, or the item.
func (c Config) shareGPTItem(conv conversation) (string, Item) {
	s := c.ShareGPT
	if !conv.replied {
		return skipNoReply, Item{}
	}
	in := tokenizer.Count(conv.prompt)
	out := s.OutputLen // an override replaces the reply's length and its check
	if out == 0 {
		out = tokenizer.Count(conv.reply)
	}
	switch {
	case in < s.MinInputLen:
		return skipShortInput, Item{}
	case s.OutputLen == 0 && out < max(s.MinOutputLen, 1): // never ask for 0 tokens
		return skipShortOutput, Item{}
	case in > s.MaxInputLen:
		return skipLongInput, Item{}
	case in+out > s.MaxTotalLen:
		return skipLongTotal, Item{}
	}
	return "", Item{Prompt: conv.prompt, InputTokens: in, OutputTokens: c.Request.capOutput(out)}
}

// expectDelim reads the next token and checks it is the delimiter d.
func expectDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := token(dec)
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("want %s, got %v", what, describe(tok))
	}
	return nil
}

// token reads the next token inside the array, where the end of the input
// always means the file was cut short.
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// skipValue consumes the next JSON value whatever it is.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// describe renders a JSON token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return string(v)
	case string:
		return fmt.Sprintf("the string %q", truncate(v, 40))
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%v", v)
	}
}

// truncate shortens s for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
