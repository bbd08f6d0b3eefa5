package promscrape

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults for a Scraper's zero fields.
const (
	DefaultInterval       = time.Second
	DefaultTimeout        = 5 * time.Second
	DefaultMaxBytes int64 = 8 << 20
)

// FailureKind classifies a failed scrape. Like a failed request, a failed
// scrape is data: Run records it and goes on.
type FailureKind string

// Failure kinds.
const (
	FailDown      FailureKind = "down"      // no connection: refused, unreachable, unknown host
	FailTimeout   FailureKind = "timeout"   // no complete response within the timeout
	FailStatus    FailureKind = "status"    // an HTTP status other than 200
	FailTooLarge  FailureKind = "too_large" // the body exceeded the size limit
	FailMalformed FailureKind = "malformed" // the body is not a Prometheus text exposition
	FailCanceled  FailureKind = "canceled"  // the caller's context ended first
	FailOther     FailureKind = "other"
)

// ErrTooLarge is wrapped by the error of a scrape whose response exceeded
// the size limit.
var ErrTooLarge = errors.New("response too large")

// ScrapeError is the error Scrape returns: which URL failed, how, and why.
type ScrapeError struct {
	URL  string
	Kind FailureKind
	Err  error
}

func (e *ScrapeError) Error() string { return fmt.Sprintf("scrape %s: %v", e.URL, e.Err) }

func (e *ScrapeError) Unwrap() error { return e.Err }

// Scrape fetches and parses the exposition at url once, with DefaultTimeout
// and DefaultMaxBytes, keeping every model. A nil client means
// http.DefaultClient. Failures are *ScrapeError.
func Scrape(ctx context.Context, client *http.Client, url string) (Snapshot, error) {
	s := Scraper{URL: url, Client: client}
	return s.Scrape(ctx)
}

// Scraper scrapes one /metrics URL, once (Scrape) or at an interval (Run).
// Set URL; every other field has a default. Fields must not change while a
// call is in progress.
type Scraper struct {
	URL    string
	Client *http.Client // nil means http.DefaultClient
	Model  string       // keep only this model_name (see Options.Model)
	Engine Engine       // force this engine's mapping instead of detecting it
	// Header is sent with every scrape: the Authorization of a server
	// that guards /metrics as it guards its API (llama-server --api-key).
	Header http.Header

	Interval time.Duration // between scrape starts in Run; zero means DefaultInterval
	Timeout  time.Duration // for one whole scrape; zero means DefaultTimeout
	MaxBytes int64         // largest body accepted; zero means DefaultMaxBytes

	// Now returns the current time; nil means time.Now. Tests inject a clock.
	Now func() time.Time
	// OnSample, when set, is called on Run's goroutine after each recorded
	// scrape, for a live view. It must return quickly: Run waits for it.
	OnSample func(Sample)
}

// Validate reports the first field that cannot work: a URL that is not
// absolute http(s), an unknown Engine, or a negative duration or size.
func (s *Scraper) Validate() error {
	u, err := url.Parse(s.URL)
	switch {
	case err != nil:
		return fmt.Errorf("metrics url %q: %w", s.URL, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("metrics url %q: scheme must be http or https", s.URL)
	case u.Host == "":
		return fmt.Errorf("metrics url %q: no host", s.URL)
	}
	if _, ok := mapping[s.Engine]; s.Engine != Unknown && !ok {
		return fmt.Errorf("unknown engine %q (want vllm, sglang, tgi or llamacpp)", string(s.Engine))
	}
	switch {
	case s.Interval < 0:
		return fmt.Errorf("scrape interval %v is negative", s.Interval)
	case s.Timeout < 0:
		return fmt.Errorf("scrape timeout %v is negative", s.Timeout)
	case s.MaxBytes < 0:
		return fmt.Errorf("scrape size limit %d is negative", s.MaxBytes)
	}
	return nil
}

func (s *Scraper) interval() time.Duration { return orDefault(s.Interval, DefaultInterval) }
func (s *Scraper) timeout() time.Duration  { return orDefault(s.Timeout, DefaultTimeout) }
func (s *Scraper) maxBytes() int64         { return orDefault(s.MaxBytes, DefaultMaxBytes) }

func (s *Scraper) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func orDefault[T time.Duration | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Scrape fetches and parses the exposition once. The snapshot's At is when
// the response headers arrived: the server renders its metrics before it
// answers, so that is the closest the client can tell. Failures are
// *ScrapeError, whose Kind says what went wrong.
func (s *Scraper) Scrape(ctx context.Context) (Snapshot, error) {
	fail := func(kind FailureKind, err error) (Snapshot, error) {
		return Snapshot{}, &ScrapeError{URL: s.URL, Kind: kind, Err: err}
	}
	if err := s.Validate(); err != nil {
		return fail(FailOther, err)
	}
	timeout := s.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return fail(FailOther, fmt.Errorf("build request: %w", err))
	}
	// Ask for the classic text format; servers that negotiate (Python's
	// prometheus_client) would otherwise be free to answer OpenMetrics.
	for k, v := range s.Header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fail(classify(ctx, err, timeout))
	}
	defer resp.Body.Close()
	at := s.now()
	if resp.StatusCode != http.StatusOK {
		// The start of the body usually says why (“engine not ready”).
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			hint = " (the server guards /metrics: give it the API key"
			if req.Header.Get("Authorization") != "" {
				hint = " (the server refused the API key sent"
			}
			hint += ", --api-key or OPENAI_API_KEY)"
		}
		if why := strings.TrimSpace(strings.SplitN(string(head), "\n", 2)[0]); why != "" {
			return fail(FailStatus, fmt.Errorf("http status %s: %q%s", resp.Status, why, hint))
		}
		return fail(FailStatus, fmt.Errorf("http status %s%s", resp.Status, hint))
	}
	limit := s.maxBytes()
	if resp.ContentLength > limit {
		return fail(FailTooLarge, fmt.Errorf("%w: %d bytes announced, over the %s limit", ErrTooLarge, resp.ContentLength, byteSize(limit)))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		kind, err := classify(ctx, err, timeout)
		return fail(kind, fmt.Errorf("read body: %w", err))
	}
	if int64(len(body)) > limit {
		return fail(FailTooLarge, fmt.Errorf("%w: more than the %s limit", ErrTooLarge, byteSize(limit)))
	}
	snap, err := Parse(bytes.NewReader(body), Options{Model: s.Model, Engine: s.Engine})
	if err != nil {
		return fail(FailMalformed, err)
	}
	snap.At = at
	return snap, nil
}

// classify turns a transport error into a failure kind and a message that
// does not repeat the URL (the ScrapeError adds it once).
func classify(ctx context.Context, err error, timeout time.Duration) (FailureKind, error) {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout():
		return FailTimeout, fmt.Errorf("no complete response within %v: %w", timeout, err)
	case errors.Is(err, context.Canceled):
		return FailCanceled, err
	case errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial":
		return FailDown, fmt.Errorf("server down: %w", err)
	}
	return FailOther, err
}

// byteSize renders a size limit the way people state one.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
