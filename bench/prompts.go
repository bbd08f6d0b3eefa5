package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/tokenizer"
)

// takesIDs reports whether a protocol can send a prompt as token ids.
func takesIDs(a *backend.Adapter) bool {
	return a.Name() == "openai" || a.Name() == "llamacpp"
}

// chooseIDs decides whether random prompts go out as token ids, and when
// they go out as text says why in a note (or, when the probe timed out or
// kept failing for want of the server, not of the prompt, a warning); ids
// are said in the workload line. Ids fix every
// prompt's length on the server exactly; they are the built-in
// tokenizer's, which any vocabulary of 32,000 or more tokens holds.
func chooseIDs(ctx context.Context, cfg Config, srv *server, a *backend.Adapter, model string, h http.Header) (useIDs bool, note, warning string, err error) {
	if !cfg.Workload.TokenIDs() || cfg.flows() {
		return false, "", "", nil
	}
	switch cfg.PromptFormat {
	case PromptText:
		return false, "", "", nil
	case PromptIDs:
		if !takesIDs(a) {
			return false, "", "", fmt.Errorf("--prompt-format ids: the %s protocol sends prompts as text (use --backend openai or llamacpp)", a.Name())
		}
		return true, "", "", nil // the workload line says it: input lengths exact (token ids)
	}
	if !takesIDs(a) {
		return false, "", "", nil
	}
	err = srv.probeIDs(ctx, a, cfg.BaseURL, cfg.Endpoint, model, h)
	for try := 1; try < probeTries && transient(err) && ctx.Err() == nil; try++ {
		select {
		case <-ctx.Done():
		case <-time.After(probeRetryWait):
		}
		err = srv.probeIDs(ctx, a, cfg.BaseURL, cfg.Endpoint, model, h)
	}
	if err != nil {
		var pe *probeError
		var te *timeoutError
		switch {
		case ctx.Err() != nil:
			return false, "", "", ctx.Err()
		case errors.As(err, &pe) && refusesEveryRequest(pe.status):
			hint := srv.hintFor(pe.status)
			if hint == "" {
				hint = "check --model, --endpoint and the API key"
			}
			return false, "", "", fmt.Errorf("a first request failed, and every request would: %w (%s)", err, hint)
		case errors.As(err, &te):
			return false, "", fmt.Sprintf("prompts sent as text: the token-id probe got no answer in time (%v)", err), nil
		case errors.As(err, &pe) && pe.status >= 200 && pe.status < 300:
			// Taken, and answered with a stream that did not read: the
			// server's stream, not the prompt, is what failed.
			return false, "", fmt.Sprintf("prompts sent as text: the token-id probe was answered with a stream that could not be read (%v); the run's requests may fail the same way", err), nil
		case transient(err):
			return false, "", fmt.Sprintf("prompts sent as text: the token-id probe failed %d times (%v), which says nothing of token ids; "+
				"the run's requests may fail the same way, and --prompt-format ids sends token ids without a probe", probeTries, err), nil
		}
		return false, fmt.Sprintf("prompts sent as text: the server did not take a token-id prompt (%v)", err), "", nil
	}
	return true, "", "", nil // the workload line says it: input lengths exact (token ids)
}

// probeIDs sends one tiny completion whose prompt is token ids and reports
// why it failed, if it did. It is sent before the run and not measured,
// and obeys the pre-run limit (a timeoutError when it passes).
func (s *server) probeIDs(ctx context.Context, a *backend.Adapter, baseURL, endpoint, model string, h http.Header) error {
	lim := s.limit(postLimit)
	pctx, cancel := context.WithTimeout(ctx, lim)
	defer cancel()
	req := backend.Request{Model: model, PromptTokenIDs: tokenizer.Encode(" hello world"), MaxTokens: 1, Headers: h}
	hreq, err := a.BuildRequest(pctx, baseURL, endpoint, &req)
	if err != nil {
		return err
	}
	what := "POST " + hreq.URL.String()
	done := s.slow(what+" (a one-token request: does it take token-id prompts?)", lim)
	defer done()
	resp, err := s.client.Do(hreq)
	if err != nil {
		return s.transportError(ctx, what, lim, err)
	}
	var rec record.Record
	start := time.Now()
	a.ReadStream(resp, func() int64 { return int64(time.Since(start)) }, &rec)
	switch {
	case rec.Error == record.ErrTimeout || (rec.Error == record.ErrCanceled && ctx.Err() == nil):
		return &timeoutError{what: what, after: lim, status: rec.Status}
	case !rec.OK():
		why := rec.Msg
		if why == "" {
			why = string(rec.Error)
		}
		return &probeError{status: rec.Status, msg: fmt.Sprintf("%s: %s", what, why)}
	}
	return nil
}

// A probe that fails for a moment (transient) is sent probeTries times in
// all, probeRetryWait apart, before prompts go out as text.
const (
	probeTries     = 3
	probeRetryWait = 500 * time.Millisecond
)

// transient reports whether a probe's failure says nothing of token-id
// prompts: the server was busy, failing or out of reach (429, 5xx but
// 501, a connection refused or reset), not refusing the prompt.
func transient(err error) bool {
	if err == nil {
		return false
	}
	var pe *probeError
	if errors.As(err, &pe) {
		return busyStatus(pe.status)
	}
	return outOfReach(err)
}

// busyStatus reports whether an HTTP status says the server was busy or
// failing for a moment (429, 5xx but 501), which says nothing of the
// request.
func busyStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// outOfReach reports whether err is a connection refused or reset.
func outOfReach(err error) bool {
	switch backend.ClassifyError(err) {
	case record.ErrConnect, record.ErrReset:
		return true
	}
	return false
}

// probeError is a probe request that got an answer other than a stream.
type probeError struct {
	status int // HTTP status, 0 if none
	msg    string
}

func (e *probeError) Error() string { return e.msg }

// refusesEveryRequest tells whether a request's status says the server
// would refuse any request of the run, whatever its prompt: no such
// model or endpoint, or no access.
func refusesEveryRequest(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound
}
