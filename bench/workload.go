package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/workload"
)

// buildWorkload builds the prompt source. Random text prompts are fitted
// to the server's own token count where it has one (see counter); when it
// has none, or its /tokenize fails or answers without a count, the
// built-in tokenizer counts them, with a warning that names the URL. It
// returns whose count the input lengths are, for the workload line.
func buildWorkload(ctx context.Context, cfg Config, wl workload.Config, srv *server, a *backend.Adapter, model string, useIDs bool) (workload.Source, string, []string, error) {
	if wl.Dataset != workload.DatasetRandom {
		src, err := workload.New(wl)
		lengths := ""
		if useIDs {
			lengths = "exact (token ids)"
		}
		return src, lengths, nil, err
	}
	const builtIn = "the built-in tokenizer's"
	var warns []string
	lengths := builtIn
	switch {
	case useIDs:
		lengths = "exact (token ids)"
	case cfg.NoCalibrate:
		lengths = builtIn + " (--no-calibrate)"
	default:
		c, err := srv.newCounter(ctx, model, a.Name(), a.Name() == "openai-chat")
		switch {
		case err == nil:
			wl.Counter, lengths = c.Count, c.describe()
		case ctx.Err() != nil:
			return nil, "", nil, ctx.Err()
		case errors.Is(err, errNoTokenizer) && cfg.Tokenizer != nil:
			wl.Counter = countWith(cfg.Tokenizer)
			lengths = "--tokenizer's (the server has no /tokenize)"
		case errors.Is(err, errNoTokenizer):
			lengths = builtIn + " (the server has no /tokenize)"
		default:
			warns = append(warns, fmt.Sprintf("prompt lengths not fitted to the server's tokenizer, the built-in one counts them: %v", err))
			lengths = builtIn + " (the server's /tokenize failed: see the warnings)"
		}
	}
	src, err := workload.New(wl)
	if err != nil && wl.Counter != nil && ctx.Err() == nil {
		// The server's count failed while fitting (a count of 0, a
		// timeout): the built-in tokenizer still gives a workload.
		wl.Counter = nil
		fitErr := err
		if src, err = workload.New(wl); err == nil {
			warns = append(warns, fmt.Sprintf("prompt lengths not fitted to the server's tokenizer, the built-in one counts them: %v", fitErr))
			lengths = builtIn + " (the server's /tokenize failed: see the warnings)"
		}
	}
	return src, lengths, warns, err
}

// countWith adapts a Tokenizer to the workload's counter.
func countWith(tok Tokenizer) func(string) (int, error) {
	return func(s string) (int, error) { return tok.Count(s), nil }
}
