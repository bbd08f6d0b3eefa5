// Package bench runs one benchmark end to end: it discovers the server's
// model, builds the workload and the arrival plan, drives the load runner,
// writes every record as it is measured, shows live progress, and summarises
// the run, including whether the generator itself kept up.
package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/transport"
	"github.com/goodput-dev/goodput/workload"
)

// Config is everything one benchmark run needs. Each field names its flag.
type Config struct {
	BaseURL  string // --base-url: the server, e.g. http://127.0.0.1:8000
	Endpoint string // --endpoint: path; empty means the backend's default
	Backend  string // --backend: openai, openai-chat, openai-responses, tgi, llamacpp, ollama
	Model    string // --model: empty asks the server's /v1/models for the first
	Headers  http.Header
	APIKey   string         // --api-key or OPENAI_API_KEY: sent as a Bearer token
	Extra    map[string]any // --extra-body
	Usage    backend.UsageMode
	// MaxTokensField is the field of openai-chat requests that carries
	// the output limit (--max-tokens-field); the zero value sends
	// max_completion_tokens, as vLLM's client does.
	MaxTokensField backend.MaxTokensField
	Insecure       bool // --insecure: skip TLS verification
	// NoKeepAlive opens a new connection for every request
	// (--keepalive=false), for servers that close kept-alive connections.
	NoKeepAlive bool
	// Transport carries the requests (--transport): the event loop where
	// it can, net/http otherwise (transport.Auto, the zero value's), or
	// the one named.
	Transport transport.Kind
	// ColdConnections turns dialling ahead off (--dial-ahead=false): no
	// connection is opened before its request is due.
	ColdConnections bool
	// PromptFormat is how random prompts are sent (--prompt-format):
	// "ids" as token ids, which fixes their length exactly (OpenAI
	// completions and llama.cpp only); "text" as text, its length fitted
	// with the server's /tokenize when it has one; "auto" (the default)
	// as ids when a probe shows the server takes them, else as text.
	PromptFormat string

	Arrival  arrival.Config
	Workload workload.Config
	// Sessions shapes multi-turn sessions and agent tasks (--multi-turn,
	// --dataset-name sessions or agent, --session-turns, --think-time,
	// --session-header); see session.Config.
	Sessions session.Config
	// BaseURLs, when it holds more than one URL, spreads the load over
	// them (--base-url given several times, or --base-url-file); BaseURL
	// is then the first. Balance says how (--balance); empty means session
	// affinity for sessions and tasks, round-robin otherwise.
	BaseURLs []string
	Balance  load.Balance

	Warmups        int           // --warmup-first: the first N requests are warm-up
	WarmupTime     time.Duration // --warmup-seconds: requests scheduled before this are warm-up
	RequestTimeout time.Duration // --request-timeout
	ReadyTimeout   time.Duration // --ready-check-timeout: wait this long for the server to answer
	Grace          time.Duration // how long in-flight requests may finish after Ctrl-C
	// NoCalibrate skips measuring the prompt length on the server's
	// tokenizer (/tokenize) for the random dataset.
	NoCalibrate bool

	// MetricsURL is the server's Prometheus endpoint (--metrics-url); empty
	// means /metrics on the base URL's host. NoServerMetrics turns scraping
	// off (--no-server-metrics).
	MetricsURL      string
	NoServerMetrics bool
	ScrapeInterval  time.Duration // --scrape-interval, default 1 s

	// StartAt is the agreed wall-clock start of a sharded run (--start-at):
	// every shard waits for it and counts its schedule from it, so the
	// shards' records merge onto one clock. Zero starts at once.
	StartAt time.Time
	// Node names the machine under this host, for the run header: in
	// Kubernetes the pod's node ($NODE_NAME, from the downward API).
	Node string

	ResultDir  string // --result-dir: where records and summaries go
	RunName    string // --run-name: file name stem; default goodput-<time>
	SaveResult bool   // --save-result: also write the JSON summary
	VLLMResult bool   // --format vllm: also write a vllm bench serve result JSON
	// Overwrite lets the run replace the files of an earlier run of the
	// same --run-name (--overwrite); without it Run refuses to start.
	Overwrite bool
	// IgnoreWriteErrors keeps the run measuring when its records can no
	// longer be written (--ignore-write-errors); without it the run stops
	// at the first failed write. Either way the summary holds every
	// measured request.
	IgnoreWriteErrors bool
	Labels            map[string]string // --label: added to every record

	Metrics metrics.Options
	// LagThreshold is the p99 dispatch lag above which the run says the
	// generator limited it (--lag-threshold, default 1 ms).
	LagThreshold time.Duration
	// Description of the target, printed in the summary (e.g. the
	// simulator's profile).
	Target string
	// ServerInProcess says that the server runs in this process (the
	// built-in simulator), sharing its Go processors with the client.
	ServerInProcess bool

	// The settings below are those of `vllm bench serve` that goodput
	// takes with vLLM's meaning (see package vllmargs).

	// Request shapes every request beyond its prompt.
	Request RequestOptions
	// WarmupRequests are sent before the run and left out of it, each the
	// run's first prompt, at most MaxConcurrency at once (vLLM's
	// --num-warmups; goodput's own warm-up, Warmups, marks requests of
	// the run instead).
	WarmupRequests int
	// NoStream sends non-streaming requests: the whole answer in one
	// response, so TTFT equals the end-to-end latency and TPOT and ITL
	// are not measured (--stream=false).
	NoStream bool
	// Profile asks the server to profile the run: POST /start_profile
	// before it, /stop_profile after it (--profile).
	Profile bool
	// ProbeRate sends one-token probe requests at this rate (per second)
	// beside the run, on a connection of their own and outside its
	// figures (--probe-request-rate); 0 sends none.
	ProbeRate float64
	// AllEntries sends one request per entry of a file dataset
	// (--num-prompts -1); NoOversample sends at most that many
	// (--no-oversample).
	AllEntries   bool
	NoOversample bool
	// VLLMFile is vLLM's result file (--save-result).
	VLLMFile VLLMFile
	// Tokenizer, when set, counts tokens as the model does (--tokenizer).
	Tokenizer Tokenizer

	// Observer, when set, follows the run as it goes (goodput's live
	// Prometheus metrics); nil for none.
	Observer Observer
}

// Prompt formats, the values of Config.PromptFormat.
const (
	PromptAuto = "auto"
	PromptIDs  = "ids"
	PromptText = "text"
)

// DefaultConfig returns the defaults of `vllm bench serve` where it has one.
func DefaultConfig() Config {
	return Config{
		Backend:        "openai",
		PromptFormat:   PromptAuto,
		Arrival:        arrival.DefaultConfig(),
		Workload:       workload.DefaultConfig(),
		Sessions:       session.DefaultConfig(),
		RequestTimeout: 6 * time.Hour,
		ReadyTimeout:   0,
		Grace:          3 * time.Second,
		LagThreshold:   time.Millisecond,
	}
}

// checkRequests builds one request as the run will, to find the options
// the backend's protocol cannot express (--min-tokens on llama.cpp's
// /completion, --ignore-eos on TGI) and a bad --endpoint before the run,
// as usage errors: otherwise every request would fail alike.
func (c *Config) checkRequests() error {
	a, err := backend.Lookup(c.Backend)
	if err != nil {
		return nil // reported by Validate
	}
	// The model may come from the server later; any name stands for it.
	req := backend.Request{Model: cmp.Or(c.Model, "model"), Prompt: "x", MinTokens: c.Workload.Request.MinTokens, IgnoreEOS: c.Workload.Request.IgnoreEOS}
	if a.Chat() {
		req.Prompt, req.Messages = "", []backend.Message{{Role: "user", Content: "x"}}
	}
	if err := a.CheckEndpoint(c.Endpoint); err != nil {
		return err
	}
	if _, err := a.BuildRequest(context.Background(), "http://127.0.0.1", c.Endpoint, &req); err != nil {
		return fmt.Errorf("--backend %s cannot send this run's requests: %w", a.Name(), err)
	}
	return nil
}

// Validate reports every problem of the configuration, each naming its flag.
// minScrapeInterval bounds --scrape-interval from below: each scrape costs
// the server a /metrics answer, and its counters move in steps of their own.
const minScrapeInterval = 10 * time.Millisecond

func (c *Config) Validate() error {
	var errs []error
	if c.BaseURL == "" {
		errs = append(errs, errors.New("--base-url is required"))
	} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--base-url %q: want an absolute http:// or https:// URL", c.BaseURL))
	} else if u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(c.BaseURL, "?") {
		// The API's paths are joined to it: a query would end up before them.
		errs = append(errs, fmt.Errorf("--base-url %q: a base URL takes no query or fragment", human.URL(c.BaseURL)))
	} else if api := backend.APIPath(u.Path); api != "" {
		// The endpoint would be joined after the API's own path.
		root := *u
		root.Path, root.RawPath = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), api), ""
		errs = append(errs, fmt.Errorf("--base-url %q ends in an API's path: give the server's address, %s, and the path as --endpoint %s",
			human.URL(c.BaseURL), human.URL(root.String()), api))
	}
	if r := c.ProbeRate; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		errs = append(errs, fmt.Errorf("--probe-request-rate %v: want a rate per second, 0 or more (0: no probes)", r))
	}
	if c.ScrapeInterval < 0 || (c.ScrapeInterval > 0 && c.ScrapeInterval < minScrapeInterval) {
		errs = append(errs, fmt.Errorf("--scrape-interval %v: want %v or more (0: the default, 1s)", c.ScrapeInterval, minScrapeInterval))
	}
	if n := c.RunName; n != "" && (strings.ContainsAny(n, `/\`) || n == "." || n == "..") {
		errs = append(errs, fmt.Errorf("--run-name %q: a file name stem, without a directory (--result-dir says where)", n))
	}
	errs = append(errs, c.validateEndpoints()...)
	if _, err := backend.Lookup(c.Backend); err != nil {
		errs = append(errs, fmt.Errorf("--backend: %w", err))
	}
	if c.MaxTokensField != backend.LimitMaxCompletionTokens && c.Backend != "openai-chat" {
		// The other protocols have one field for the limit each.
		errs = append(errs, fmt.Errorf("--max-tokens-field %s: only openai-chat has a choice of field for the output limit (backend %s)", c.MaxTokensField, c.Backend))
	}
	if why := c.Workload.NeedsChat(); why != "" && c.Backend != "openai-chat" {
		errs = append(errs, fmt.Errorf("--backend %s: %s; add --backend openai-chat --endpoint /v1/chat/completions", c.Backend, why))
	}
	if a, err := backend.Lookup(c.Backend); err == nil && c.Workload.Dataset == workload.DatasetTimedTrace && !takesIDs(a) {
		// vLLM refuses it too: its prompts are token ids.
		errs = append(errs, fmt.Errorf("--dataset-name timed_trace sends its prompts as token ids, which --backend %s cannot carry: use --backend openai or vllm (completions), as vLLM requires", c.Backend))
	}
	if a, err := backend.Lookup(c.Backend); err == nil && c.NoStream {
		if _, err := a.WithoutStreaming(); err != nil {
			errs = append(errs, fmt.Errorf("--stream=false: %w", err))
		}
	}
	if v, ok := c.Extra["stream"]; ok {
		// Merged last, it would send answers the reader does not
		// expect, and the records would not say how they were read.
		if b, isBool := v.(bool); !isBool || b == c.NoStream {
			errs = append(errs, fmt.Errorf(`--extra-body "stream": %v: goodput sets it, true unless --stream=false (which reads answers whole); give --stream=false instead`, v))
		}
	}
	a := c.Arrival
	if c.AllEntries && a.NumPrompts == 0 && a.Duration == 0 {
		a.NumPrompts = 1 // the dataset's size, known once it is read
	}
	if err := a.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.ValidateWorkload(); err != nil {
		errs = append(errs, err)
	} else if err := c.Workload.CheckPath(); err != nil {
		errs = append(errs, err) // before Run waits for the server
	}
	switch c.PromptFormat {
	case PromptIDs:
		if a, err := backend.Lookup(c.Backend); err == nil && !takesIDs(a) {
			errs = append(errs, fmt.Errorf("--prompt-format ids: the %s protocol sends prompts as text (use --backend openai or llamacpp)", a.Name()))
		}
	case PromptAuto, PromptText:
	default:
		errs = append(errs, fmt.Errorf("--prompt-format %q: want auto, ids or text", c.PromptFormat))
	}
	if err := c.checkRequests(); err != nil {
		errs = append(errs, err)
	}
	if c.Warmups < 0 {
		errs = append(errs, fmt.Errorf("--warmup-first must be ≥ 0, got %d", c.Warmups))
	}
	if c.WarmupRequests < 0 {
		errs = append(errs, fmt.Errorf("--num-warmups must be ≥ 0, got %d", c.WarmupRequests))
	}
	if d := c.Workload.Dataset; c.AllEntries && (d == workload.DatasetRandom || d == workload.DatasetTxtSlices) {
		errs = append(errs, fmt.Errorf("--num-prompts -1 takes every entry of a dataset file; the %s dataset has none", d))
	}
	if c.WarmupTime < 0 {
		errs = append(errs, fmt.Errorf("--warmup-seconds must be ≥ 0, got %v", c.WarmupTime))
	}
	if c.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("--request-timeout must be ≥ 0, got %v", c.RequestTimeout))
	}
	if _, err := transport.ParseKind(string(c.Transport)); err != nil {
		errs = append(errs, err)
	} else if err := transport.Check(c.Transport, c.BaseURL); err != nil && c.BaseURL != "" {
		errs = append(errs, err)
	}
	if c.LagThreshold <= 0 {
		errs = append(errs, fmt.Errorf("--lag-threshold must be > 0, got %v", c.LagThreshold))
	}
	if err := c.Metrics.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
