package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/workload"
)

// builtIn says that lengths are the built-in tokenizer's count.
const builtIn = "the built-in tokenizer's"

// serverCount is how a run counts made-up text as the server will.
type serverCount struct {
	// count is the server's /tokenize (after its chat template for
	// chat), or --tokenizer where the server has none or --no-calibrate
	// keeps it from counting; nil when neither counts and the built-in
	// tokenizer's count stands.
	count workload.Counter
	// text counts text alone where count adds a chat template; nil where
	// count counts text alone.
	text workload.Counter
	// lengths says whose count the input lengths are, for the workload
	// line; "" when nothing is made by length or prompts are token ids.
	lengths string
}

// countFor finds how to count the run's made-up text as the server will:
// for the datasets that make text of a given length (random, a trace's
// rows, BurstGPT, ServeGen, prefix_repetition, sessions' made-up messages,
// the --system-prompts before any prompt) or cut it to one (txt-slices)
// when it goes out as text. Token
// ids are exact already, and --no-calibrate keeps the built-in count. A
// server whose /tokenize fails is counted by the built-in tokenizer, with
// a warning that names the URL. The error is the run's context's.
func countFor(ctx context.Context, cfg Config, srv *server, a *backend.Adapter, model string, useIDs bool) (serverCount, []string, error) {
	wl := cfg.Workload
	switch {
	case useIDs:
		return serverCount{lengths: "exact (token ids)"}, nil, nil
	case !wl.TokenIDs() && !wl.Calibrated() && !cfg.flows() && wl.SystemPrompts.Count == 0:
		// The dataset's texts are its own; their lengths in the
		// workload line are the built-in tokenizer's.
		return serverCount{lengths: builtIn + " count of the dataset's texts (the summary's totals are the server's, where it reports usage)"}, nil, nil
	case cfg.NoCalibrate && cfg.Tokenizer != nil:
		return serverCount{count: countWith(cfg.Tokenizer), lengths: "--tokenizer's (--no-calibrate: the server's /tokenize is not asked)"}, nil, nil
	case cfg.NoCalibrate:
		return serverCount{lengths: builtIn + " (--no-calibrate)"}, nil, nil
	}
	c, err := srv.newCounter(ctx, model, a.Name(), a.Chat())
	switch {
	case err == nil:
		sc := serverCount{count: c.Count, lengths: c.describe()}
		if c.chat != "" {
			sc.text = c.CountText
		}
		return sc, nil, nil
	case ctx.Err() != nil:
		return serverCount{}, nil, ctx.Err()
	case errors.Is(err, errNoTokenizer) && cfg.Tokenizer != nil:
		return serverCount{count: countWith(cfg.Tokenizer), lengths: "--tokenizer's (the server has no /tokenize)"}, nil, nil
	case errors.Is(err, errNoTokenizer):
		return serverCount{lengths: builtIn + " (the server has no /tokenize)"}, nil, nil
	}
	lengths, warns := notFitted(err)
	return serverCount{lengths: lengths}, warns, nil
}

// notFitted is whose count the lengths are, and the warning, when the
// server's /tokenize failed with err and the built-in tokenizer counts.
func notFitted(err error) (lengths string, warns []string) {
	return builtIn + " (the server's /tokenize failed: see the warnings)",
		[]string{fmt.Sprintf("prompt lengths not fitted to the server's tokenizer, the built-in one counts them: %v", err)}
}

// textFit measures how sc counts the built-in tokenizer's text (see
// workload.Fit) for the sessions or tasks of flows and every dataset that
// makes text of a given length but random and txt-slices, which fit their
// prompts to sc themselves (see buildWorkload). It returns the zero Fit where there is
// nothing to fit, and where the count failed, with a warning; lengths is
// sc's, saying so when a fit sized the text. The error is the run's
// context's.
func textFit(ctx context.Context, wl workload.Config, flows bool, sc serverCount) (fit workload.Fit, lengths string, warns []string, err error) {
	if sc.count == nil || !flows && wl.Calibrated() && wl.SystemPrompts.Count == 0 {
		return fit, sc.lengths, nil, nil
	}
	if fit, err = workload.MeasureFit(sc.count, wl.Seed); err != nil {
		if ctx.Err() != nil {
			return fit, "", nil, ctx.Err()
		}
		return workload.Fit{}, builtIn + " (the server's count failed: see the warnings)",
			[]string{fmt.Sprintf("made-up texts not sized to the server's tokenizer, the built-in one counts them: %v", err)}, nil
	}
	lengths = fmt.Sprintf("%s, made-up text sized by a fit of it (%s)", sc.lengths, fit)
	if flows {
		// A message is sized by its text (Fit.Words), which the
		// template's markup then joins in each prompt.
		lengths += fmt.Sprintf(": a message's length is its text's, and the %.1f more per prompt the chat template's", fit.Overhead)
	}
	return fit, lengths, nil, nil
}

// buildWorkload builds the prompt source of wl. Random and txt-slices
// text prompts are fitted to sc's count where it has one; when that count fails while
// fitting (a count of 0, a timeout), the built-in tokenizer counts them,
// with a warning. It returns whose count the input lengths are, for the
// workload line.
func buildWorkload(ctx context.Context, wl workload.Config, sc serverCount) (workload.Source, string, []string, error) {
	if !wl.Calibrated() {
		src, err := workload.New(wl)
		return src, "", nil, err
	}
	wl.Counter, wl.TextCounter = sc.count, sc.text
	src, err := workload.New(wl)
	if err != nil && wl.Counter != nil && ctx.Err() == nil {
		wl.Counter, wl.TextCounter = nil, nil
		fitErr := err
		if src, err = workload.New(wl); err == nil {
			lengths, warns := notFitted(fitErr)
			return src, lengths, warns, nil
		}
	}
	return src, sc.lengths, nil, err
}

// fitNotice is how many random prompts fitted one by one (see
// workload.Random) are worth a line that says what the wait before the
// run is.
const fitNotice = 1000

// runContent is what a run sends: independent requests (src) or the
// sessions or tasks of flows (fsrc), the other nil; whose count its input
// lengths are, for the workload line; and the fit that sized its made-up
// text, the zero Fit where none did.
type runContent struct {
	src     workload.Source
	fsrc    session.Source
	lengths string
	fit     workload.Fit
}

// buildContent builds the run's content from wl, sizing made-up text to
// the server's count (see countFor and textFit). preloaded is the file
// dataset read ahead to size the run (see fitToDataset), nil for none: it
// is kept unless a fit sizes its text, when it is read again with it.
func buildContent(ctx context.Context, cfg Config, wl workload.Config, srv *server, a *backend.Adapter, model string, useIDs bool, preloaded workload.Source) (runContent, []string, error) {
	var rc runContent
	sc, warns, err := countFor(ctx, cfg, srv, a, model, useIDs)
	if err != nil {
		return rc, nil, err
	}
	fit, fitLengths, more, err := textFit(ctx, wl, cfg.flows(), sc)
	if err != nil {
		return rc, nil, err
	}
	warns = append(warns, more...)
	if wl.Fit, rc.fit = fit, fit; fit.Active() {
		preloaded = nil
	}
	if rc.fsrc, err = newFlowSource(cfg, wl); err != nil {
		return rc, nil, err
	}
	rc.src = preloaded
	if rc.src == nil && rc.fsrc == nil {
		if n := min(len(wl.FitSeqs), workload.MaxFitEach); sc.count != nil && wl.Dataset == workload.DatasetRandom && n >= fitNotice {
			srv.say("fitting %d random prompts to the server's tokenizer before the run, about %d counts", n, 4*n)
		}
		if rc.src, rc.lengths, more, err = buildWorkload(ctx, wl, sc); err != nil {
			return rc, nil, err
		}
		warns = append(warns, more...)
	}
	if rc.lengths == "" {
		rc.lengths = fitLengths
	}
	return rc, warns, nil
}

// countWith adapts a Tokenizer to the workload's counter.
func countWith(tok Tokenizer) func(string) (int, error) {
	return func(s string) (int, error) { return tok.Count(s), nil }
}
