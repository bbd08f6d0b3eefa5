package backend

import "fmt"

// buildLlamaCpp builds a llama.cpp server /completion body. Token ids are
// sent as the prompt when given (llama.cpp accepts a list of ints), and
// return_tokens asks for each chunk's token ids so that counts are exact.
func buildLlamaCpp(a *Adapter, req *Request) (map[string]any, error) {
	if len(req.Messages) > 0 {
		return nil, needsChat(a)
	}
	if err := unsupported(a, "min tokens (--min-tokens)", req.MinTokens > 0); err != nil {
		return nil, err
	}
	prompt, err := idsOrTextPrompt(req)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"stream": true, "return_tokens": true, "prompt": prompt}
	if req.Model != "" {
		body["model"] = req.Model // used by llama-server's router mode, ignored otherwise
	}
	if req.MaxTokens > 0 {
		body["n_predict"] = req.MaxTokens
	}
	if req.IgnoreEOS {
		body["ignore_eos"] = true
	}
	return body, nil
}

// decodeLlamaCpp decodes one /completion event: content and tokens per
// chunk; on the last (stop: true) tokens_predicted, tokens_evaluated,
// stop_type and timings. tokens_evaluated counts the whole prompt, while
// timings.prompt_n leaves out tokens served from the prompt cache, so the
// former wins when both are present.
func decodeLlamaCpp(d *decoder, p []byte, ev *event) error {
	if isDone(p) {
		ev.done = true
		return nil
	}
	s := &d.s
	s.reset(p)
	if err := s.object(); err != nil {
		return err
	}
	text, ids := false, 0
	predicted, evaluated, promptN, predictedN := -1, -1, -1, -1
	var stop, limit bool
	var stopType []byte
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "content":
			var raw []byte
			var esc bool
			raw, esc, err = s.text()
			ev.keepText(raw, esc)
			text = len(raw) > 0
		case "tokens":
			ids, err = d.countArray()
		case "stop":
			stop, err = s.boolean()
		case "stop_type":
			stopType, err = d.rawText(&d.finish)
		case "stopped_limit": // servers before stop_type
			limit, err = s.boolean()
		case "tokens_predicted":
			predicted, err = d.count("tokens_predicted")
		case "tokens_evaluated":
			evaluated, err = d.count("tokens_evaluated")
		case "timings":
			promptN, predictedN, err = d.llamaTimings(ev)
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
	switch {
	case ids > 0:
		ev.addIDs(ids)
	case text:
		ev.addText()
	}
	ev.usage, ev.prompt = predicted, evaluated
	timingCounts(ev, promptN, predictedN)
	if stop {
		ev.done = true
		ev.finish = llamaFinish(stopType, limit)
	}
	return nil
}

// timingCounts fills the counts a usage block did not give from
// llama.cpp's timings: predicted_n output tokens, and a prompt of
// prompt_n tokens evaluated beside cache_n served from the cache (a
// request sent without stream_options, as --usage none sends it, still
// gets them).
func timingCounts(ev *event, promptN, predictedN int) {
	if ev.usage < 0 {
		ev.usage = predictedN
	}
	if ev.prompt < 0 && promptN >= 0 {
		ev.prompt = promptN + max(ev.cached, 0)
	}
}

// llamaTimings reads llama.cpp's timings object: prompt_n and predicted_n
// are returned (-1 when absent); cache_n, prompt_ms and predicted_ms go to
// ev. A cache count from an OpenAI-style usage block read before wins over
// cache_n: both say the same on llama.cpp, and the usage block is the
// standard one.
func (d *decoder) llamaTimings(ev *event) (promptN, predictedN int, err error) {
	s := &d.s
	promptN, predictedN = -1, -1
	if s.null() {
		return promptN, predictedN, nil
	}
	if err := s.object(); err != nil {
		return promptN, predictedN, err
	}
	for first := true; ; first = false {
		key, ok, ferr := s.field(first)
		if ferr != nil || !ok {
			return promptN, predictedN, ferr
		}
		switch string(key) {
		case "prompt_n":
			promptN, err = d.count("timings.prompt_n")
		case "predicted_n":
			predictedN, err = d.count("timings.predicted_n")
		case "cache_n":
			var n int
			if n, err = d.count("timings.cache_n"); err == nil && ev.cached < 0 {
				ev.cached = n
			}
		case "prompt_ms":
			ev.prefillMS, err = s.duration()
		case "predicted_ms":
			ev.decodeMS, err = s.duration()
		default:
			err = s.skip()
		}
		if err != nil {
			return promptN, predictedN, fmt.Errorf("%s: %w", key, err)
		}
	}
}

// llamaFinish maps llama.cpp's stop_type onto OpenAI's finish reasons.
func llamaFinish(stopType []byte, limit bool) []byte {
	switch string(stopType) {
	case "limit":
		return finishLength
	case "eos", "word", "":
		if limit {
			return finishLength
		}
		return finishStop
	}
	return stopType
}
