package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/workload"
)

// sonnetSized is how the sonnet prompts are sized.
type sonnetSized struct {
	count workload.SonnetCount
	// r rendered the prompts to size them; clientTemplate sends its
	// renderings where its count is the one a prompt is sent with (not
	// a chat endpoint's, which adds the template again). Nil for none.
	r    *renderer
	note string
	warn string
}

// sonnetSizing finds how to size the sonnet prompts as vLLM's sampler
// does (see workload.SonnetCount), for every backend: each draw rendered
// with the server's template as the one user message (no kwargs: vLLM's
// sonnet sampler passes none) and the rendered text counted as text, as
// vLLM's client counts the formatted prompt. The count is the server's
// /tokenize, exact for the server's own tokenizer and template; else, or
// with --no-calibrate, --tokenizer's or the built-in tokenizer's, which
// the note says is an approximation. A server with no route to its
// template leaves the prompts sized by their bare text, and the note says
// so. The error is a route's error answer, or the run's context's.
func sonnetSizing(ctx context.Context, cfg Config, wl workload.Config, srv *server, a *backend.Adapter, model string) (sonnetSized, error) {
	var z sonnetSized
	if wl.Dataset != workload.DatasetSonnet {
		return z, nil
	}
	base := userMessage(workload.SonnetInstruction)
	route, text, err := findRoute(ctx, srv, a.Name(), model, base, nil)
	var none *errNoRoute
	switch {
	case errors.As(err, &none):
		z.note = fmt.Sprintf("Sonnet sizing: by the bare text, where vLLM sizes the prompts by their length formatted with the model's chat template: %v", none)
		return z, nil
	case err != nil && ctx.Err() != nil:
		return z, ctx.Err()
	case err != nil:
		return z, fmt.Errorf("sizing the sonnet prompts by the server's chat template: %w", err)
	}
	count, lengths, exact := countBuiltIn, builtIn, false
	switch c, err := srv.newCounter(ctx, model, a.Name(), false); {
	case cfg.NoCalibrate && cfg.Tokenizer != nil:
		count, lengths = countWith(cfg.Tokenizer), "--tokenizer's (--no-calibrate)"
	case cfg.NoCalibrate:
		lengths = builtIn + " (--no-calibrate)"
	case err == nil:
		count, lengths, exact = c.Count, c.describe(), true
	case ctx.Err() != nil:
		return z, ctx.Err()
	case errors.Is(err, errNoTokenizer) && cfg.Tokenizer != nil:
		count, lengths = countWith(cfg.Tokenizer), "--tokenizer's (the server has no /tokenize)"
	case errors.Is(err, errNoTokenizer):
		lengths = builtIn + " (the server has no /tokenize)"
	default:
		lengths = builtIn + " (the server's /tokenize failed: see the warnings)"
		z.warn = fmt.Sprintf("sonnet prompts not sized by the server's tokenizer, the built-in one counts them: %v", err)
	}
	r := newRenderer(ctx, srv, model, route, nil, count, base, text)
	r.lengths = lengths
	z.count = workload.SonnetCount{
		Line: count,
		Formatted: func(p string) (int, error) {
			_, n, err := r.render(userMessage(p))
			return n, err
		},
	}
	if !a.Chat() {
		z.r = r
	}
	how := "exactly as vLLM does, the server's template and tokenizer standing for the model's"
	if !exact {
		how = "as vLLM does but approximately: the lines and formatted prompts are counted by " + lengths + ", not the model's tokenizer"
	}
	z.note = fmt.Sprintf("Sonnet sizing: by the prompts' length formatted with the server's chat template (%s), %s; a prompt's input length is its formatted count, under openai-chat too, as vLLM's prompt_len", route.name, how)
	return z, nil
}
