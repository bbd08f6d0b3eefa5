package backend

import "fmt"

// buildOllama builds an Ollama /api/generate body. Ollama needs the model
// name; the output cap goes in options.num_predict.
func buildOllama(a *Adapter, req *Request) (map[string]any, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("ollama needs a model name (--model)")
	}
	if err := unsupported(a, "min tokens (--min-tokens)", req.MinTokens > 0); err != nil {
		return nil, err
	}
	if err := unsupported(a, "ignore eos (--ignore-eos)", req.IgnoreEOS); err != nil {
		return nil, err
	}
	prompt, err := textPrompt(a, req)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"model": req.Model, "prompt": prompt, "stream": true}
	if req.MaxTokens > 0 {
		body["options"] = map[string]any{"num_predict": req.MaxTokens}
	}
	return body, nil
}

// decodeOllama decodes one /api/generate line: response (and thinking, for
// reasoning models) per chunk; on the last (done: true) done_reason,
// eval_count and prompt_eval_count.
func decodeOllama(d *decoder, p []byte, ev *event) error {
	s := &d.s
	s.reset(p)
	if err := s.object(); err != nil {
		return err
	}
	text, thinking, done := false, false, false
	var reason []byte
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "response", "thinking":
			var raw []byte
			var esc bool
			raw, esc, err = s.text()
			if string(key) == "response" {
				ev.keepText(raw, esc)
				text = text || len(raw) > 0
			} else {
				thinking = thinking || len(raw) > 0
			}
		case "done":
			done, err = s.boolean()
		case "done_reason":
			reason, err = d.rawText(&d.finish)
		case "eval_count":
			ev.usage, err = d.count("eval_count")
		case "prompt_eval_count":
			ev.prompt, err = d.count("prompt_eval_count")
		case "error":
			var e serverError
			var got bool
			if e, got, err = d.errorValue(); got {
				ev.setError(e)
			}
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	if text || thinking {
		ev.addText()
	}
	ev.answer, ev.reasoning = text, thinking
	if done {
		ev.done = true
		ev.finish = reason
		if len(reason) == 0 {
			ev.finish = finishStop
		}
	}
	return nil
}
