package backend

import (
	"bytes"

	"github.com/goodput-dev/goodput/record"
)

// event is what one stream event says, in protocol-neutral terms. A decoder
// fills it from one payload; the tally turns the sequence into Chunks.
type event struct {
	tokens int  // output tokens its content shows: token ids counted, else 1 per choice with text; 0 when none
	exact  bool // every counted token came from token ids, not from the presence of text
	// held counts, of tokens, the completions choices with empty text
	// and no finish: each a token the server decoded and whose text it
	// held back (the start of a stop string, part of a character) to
	// release with a later event's, as llama.cpp and vLLM do.
	held    int
	choices bool // OpenAI: it carried at least one choice, so a usage block beside it may be a running count
	usage   int  // output-token count the server reported in it; -1 when none
	prompt  int  // prompt tokens the server reported; -1 when none
	cached  int  // prompt tokens the server served from its cache; -1 when not said
	// prefillMS and decodeMS are the server's timings of the request
	// (llama.cpp's prompt_ms and predicted_ms); -1 when not given.
	prefillMS, decodeMS float64
	finish              []byte // finish reason in OpenAI's words ("stop", "length", …); nil when absent
	done                bool   // the protocol's terminator: nothing after it is measured
	failed              bool   // the server reported an error in the stream
	errMsg              string // its message, when failed
	// errKind is the failure's kind, when failed (see serverError.kind).
	errKind record.ErrorKind

	// text is the answer text the event carried (raw JSON string
	// contents, escaped when textEsc), for adapters that keep the
	// generated text; textAll says it is the whole answer so far (TGI's
	// generated_text) rather than a piece of it.
	text    []byte
	textEsc bool
	textAll bool

	// answer and reasoning say what the output of the event was: answer
	// text or a tool call, or a reasoning model's thinking
	// (reasoning_content, reasoning, thinking). An event with both is
	// answer; one with neither (token ids or a usage rise without text)
	// continues what came before it (see tally).
	answer, reasoning bool
	// reasoningUsage is the reasoning-token count the server reported
	// (usage.completion_tokens_details.reasoning_tokens); -1 when none.
	reasoningUsage int
}

func (e *event) reset() {
	*e = event{exact: true, usage: -1, prompt: -1, cached: -1, prefillMS: -1, decodeMS: -1, reasoningUsage: -1}
}

// keepText records raw as (a piece of) the answer text.
func (e *event) keepText(raw []byte, esc bool) {
	if len(raw) == 0 {
		return
	}
	if e.text != nil {
		// A second piece in one event (several choices): fall back to
		// the first, as vLLM's client reads choices[0] only.
		return
	}
	e.text, e.textEsc = raw, esc
}

// setError records that the event reported e.
func (e *event) setError(se serverError) {
	e.failed, e.errMsg, e.errKind = true, se.text(), se.kind()
}

// addText counts one token for a choice or message whose text is non-empty.
func (e *event) addText() {
	e.tokens++
	e.exact = false
}

// addHeld counts the token of a choice whose text the server held back.
func (e *event) addHeld() {
	e.tokens++
	e.exact = false
	e.held++
}

// addIDs counts n tokens listed as ids.
func (e *event) addIDs(n int) {
	e.tokens += n
}

// decoder holds what decoding one stream needs between events, so that
// decoding allocates nothing per event.
type decoder struct {
	s      scanner
	finish []byte // unescaped finish reason; event.finish may point here
	// lead is the start of the stream's last chunk, through the comma
	// after the fields it led with that decoded to nothing (see
	// decodeOpenAI).
	lead []byte
	// badField and badValue are the first token count of the stream
	// that was not one (see count): the field's full name and its JSON,
	// which points into the event being decoded, so the stream copies
	// it out before the next (see stream.events). badField stays set
	// once a count was dropped, and later ones are not noted.
	badField string
	badValue []byte
}

// count reads the token count of field, named in full for Stats
// ("usage.completion_tokens"). A value that is valid JSON but no count
// (see scanner.count) reads as not reported, -1, and is noted when it is
// the stream's first, so that the run can say so; only JSON that does not
// parse is an error.
func (d *decoder) count(field string) (int, error) {
	start := d.s.peekIndex()
	n, ok, err := d.s.count()
	if !ok && err == nil && d.badField == "" {
		d.badField, d.badValue = field, d.s.b[start:d.s.i]
	}
	return n, err
}

// decodeFunc decodes one event payload into ev (already reset).
type decodeFunc func(d *decoder, p []byte, ev *event) error

// Finish reasons in OpenAI's vocabulary, which the other protocols are
// mapped onto so that runs against different servers compare.
var (
	finishStop   = []byte("stop")
	finishLength = []byte("length")
)

// finishAbort is the finish reason of a request the server gave up on
// (SGLang, vLLM): the stream ends as usual, but the request failed.
const finishAbort = "abort"

// isDone reports whether p is OpenAI's "[DONE]" sentinel.
func isDone(p []byte) bool {
	return string(bytes.TrimSpace(p)) == "[DONE]"
}

// rawText reads a string (or null) and returns its text, using dst as
// scratch when it has escapes. Only short fields go through here.
func (d *decoder) rawText(dst *[]byte) ([]byte, error) {
	raw, esc, err := d.s.text()
	if err != nil || !esc {
		return raw, err
	}
	*dst, err = unquote((*dst)[:0], raw)
	return *dst, err
}

// anyText reads any value as display text: a string's contents, null as
// "", anything else as its JSON.
func (d *decoder) anyText() (string, error) {
	s := &d.s
	if s.peek() == '"' {
		raw, esc, err := s.str()
		return textOf(raw, esc), err
	}
	if s.null() {
		return "", nil
	}
	start := s.peekIndex()
	if err := s.skip(); err != nil {
		return "", err
	}
	return string(s.b[start:s.i]), nil
}

// textOf turns validated raw string contents into text.
func textOf(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw)
	}
	b, err := unquote(nil, raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
