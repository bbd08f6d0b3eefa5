package backend

import "fmt"

// buildTGI builds a Text Generation Inference /generate_stream body. TGI
// serves one model, so Model is not sent; details=true makes the last event
// carry the finish reason and token counts.
func buildTGI(a *Adapter, req *Request) (map[string]any, error) {
	if err := unsupported(a, "min tokens (--min-tokens)", req.MinTokens > 0); err != nil {
		return nil, err
	}
	if err := unsupported(a, "ignore eos (--ignore-eos)", req.IgnoreEOS); err != nil {
		return nil, err
	}
	inputs, err := textPrompt(a, req)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"details": true}
	if req.MaxTokens > 0 {
		params["max_new_tokens"] = req.MaxTokens
	}
	return map[string]any{"inputs": inputs, "parameters": params}, nil
}

// decodeTGI decodes one /generate_stream event. TGI streams exactly one
// token per event; the last event also has generated_text and details.
func decodeTGI(d *decoder, p []byte, ev *event) error {
	if isDone(p) {
		ev.done = true
		return nil
	}
	s := &d.s
	s.reset(p)
	if err := s.object(); err != nil {
		return err
	}
	var errText, errType string
	var hasErr bool
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "token":
			if s.null() {
				break
			}
			// Every token counts, special ones (EOS) included, whatever
			// their text.
			if err = s.skip(); err == nil {
				ev.addText()
			}
		case "generated_text":
			if !s.null() {
				ev.done = true
				var raw []byte
				var esc bool
				raw, esc, err = s.str()
				ev.keepText(raw, esc)
				ev.textAll = true
			}
		case "details":
			err = d.tgiDetails(ev)
		case "error":
			hasErr = true
			errText, err = d.anyText()
		case "error_type":
			errType, err = d.anyText()
		default:
			err = s.skip()
		}
		if err != nil {
			return err
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	if hasErr {
		// TGI answers 200 and reports in the stream errors that it
		// answers with a status elsewhere (overloaded 429, validation
		// 422, generation 424, incomplete_generation 500): they get that
		// status's kind (see serverError.kind).
		ev.setError(serverError{msg: errText, typ: errType})
	}
	return nil
}

func (d *decoder) tgiDetails(ev *event) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.object(); err != nil {
		return err
	}
	ev.done = true
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "finish_reason":
			var f []byte
			if f, err = d.rawText(&d.finish); err == nil && f != nil {
				ev.finish = tgiFinish(f)
			}
		case "generated_tokens":
			ev.usage, err = d.count("details.generated_tokens")
		case "input_length":
			ev.prompt, err = d.count("details.input_length")
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("details.%s: %w", key, err)
		}
	}
}

// tgiFinish maps TGI's finish reasons onto OpenAI's.
func tgiFinish(f []byte) []byte {
	switch string(f) {
	case "eos_token", "stop_sequence":
		return finishStop
	case "length":
		return finishLength
	}
	return f
}
