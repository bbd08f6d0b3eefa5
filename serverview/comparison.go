package serverview

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
)

// Comparison is the server's view of one measured window set beside the
// client's. It is plain data with snake_case JSON, saved with a run's
// summary. Latencies are in seconds and KV usage is a fraction (0–1).
//
// A quantity the server did not export, or that the window could not
// measure, is nil (absent from the JSON), and Missing says why.
type Comparison struct {
	URL    string            `json:"url"`
	Engine promscrape.Engine `json:"engine"`
	Model  string            `json:"model,omitempty"` // the model filter, if any
	// Endpoints is how many endpoints' accounts this one adds up (Fleet);
	// 0 for one server's.
	Endpoints int `json:"endpoints,omitempty"`

	Start time.Time `json:"window_start"` // the client's measured window
	End   time.Time `json:"window_end"`
	// CoveredSeconds is the time between the two scrapes that bracket the
	// window, which the server's counter and histogram differences span. It
	// exceeds the window by up to a scrape interval at each end.
	CoveredSeconds float64 `json:"covered_seconds"`
	Scrapes        int     `json:"scrapes"`        // scrapes started inside the window
	FailedScrapes  int     `json:"failed_scrapes"` // of those, how many failed

	TTFT LatencyComparison `json:"ttft"`
	ITL  LatencyComparison `json:"itl"`
	E2E  LatencyComparison `json:"e2e"`

	// Phases are the queue, prefill and decode shares of the server's
	// request latency, for those the server exports.
	Phases []promscrape.Phase `json:"phases,omitempty"`

	Running      *GaugeSummary `json:"running,omitempty"`
	Waiting      *GaugeSummary `json:"waiting,omitempty"`
	KVCacheUsage *GaugeSummary `json:"kv_cache_usage,omitempty"`

	Preemptions *CounterSummary `json:"preemptions,omitempty"`
	// PrefixCacheHitRate is the fraction of prefix-cache lookups (tokens,
	// for vLLM) that hit over the window.
	PrefixCacheHitRate *float64 `json:"prefix_cache_hit_rate,omitempty"`
	// TracePrefixHitRate is a replayed trace's own theoretical hit rate
	// over the run's requests, set by the caller that knows it, to read
	// beside PrefixCacheHitRate; nil otherwise.
	TracePrefixHitRate *float64 `json:"trace_prefix_hit_rate,omitempty"`
	// ClientCacheHitRate is the same seen from the client: the prompt
	// tokens the responses said came from the cache, over the completed
	// requests whose responses said (metrics.PromptCache).
	ClientCacheHitRate *float64 `json:"client_cache_hit_rate,omitempty"`

	// GenerationTokens is what the server counted over the covered span;
	// ClientOutputTokens what the client counted over its window. The
	// server's count also holds warm-up requests and anyone else's
	// traffic, and its rate is over the covered span.
	GenerationTokens   *CounterSummary `json:"generation_tokens,omitempty"`
	ClientOutputTokens *CounterSummary `json:"client_output_tokens,omitempty"`

	// Speeds are the server's own prefill and decode speeds over the
	// window, where it counts the time it spends (llama.cpp).
	Speeds *Speeds `json:"speeds,omitempty"`
	// SpecDecode is the server's speculative decoding over the window;
	// nil when it drafted nothing.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
	// Diffusion is the server's diffusion decoding over the window; nil
	// when it ran no step or committed no token.
	Diffusion *Diffusion `json:"diffusion,omitempty"`
	// ResponseTimings are the server's per-request timings from its
	// responses (llama.cpp's timings), as the client's records hold them:
	// its prefill is a server-side TTFT that leaves out the wait for a
	// slot, set beside the client's TTFT.
	ResponseTimings *metrics.ServerTimings `json:"response_timings,omitempty"`

	Status  Status               `json:"status"`
	Missing []string             `json:"missing,omitempty"` // what could not be compared, and why
	Notes   []string             `json:"notes,omitempty"`   // caveats about the window (partial cover, resets)
	Scrape  *promscrape.Coverage `json:"scrape_coverage,omitempty"`
}

// LatencyComparison is one latency as the server's histogram and the client's
// records saw it.
type LatencyComparison struct {
	ServerObservations float64             `json:"server_observations"`
	ServerMean         *float64            `json:"server_mean_s,omitempty"`
	ClientCount        int64               `json:"client_count"`
	ClientMean         *float64            `json:"client_mean_s,omitempty"`
	P50                *QuantileComparison `json:"p50,omitempty"`
	P99                *QuantileComparison `json:"p99,omitempty"`
	// ServerHistogram is the server's histogram over the window, which
	// ServerObservations, ServerMean and the server's percentiles were read
	// from: kept so that the accounts of endpoints with the same buckets
	// add up to their fleet's (Fleet). Nil when the server did not export
	// it, and in summaries written before it was kept.
	ServerHistogram *promscrape.Histogram `json:"server_histogram,omitempty"`
}

// QuantileComparison is one percentile on both sides. Server is a bucket
// estimate (the true value lies within its bounds); Client is exact over the
// recorded requests. Gap is Client − Server: the time spent outside the
// server (network, gateway, the client's own queue and parsing), with the
// range the server's bucket bounds allow.
type QuantileComparison struct {
	Server *promscrape.Estimate `json:"server,omitempty"`
	Client *float64             `json:"client_s,omitempty"`
	Gap    *Range               `json:"gap,omitempty"`
}

// Range is a value with the bounds it is known to lie within.
type Range struct {
	Value float64 `json:"value_s"`
	Lower float64 `json:"lower_s"`
	Upper float64 `json:"upper_s"`
}

// GaugeSummary is a gauge over the scrapes inside the window.
type GaugeSummary struct {
	Peak    float64 `json:"peak"`
	Mean    float64 `json:"mean"`
	Samples int     `json:"samples"`
}

// Speeds are a server's own speeds from its time counters. A stream's
// speeds: the time counted is per request, so four requests decoded
// together for a second count four seconds.
type Speeds struct {
	// PrefillTokensPerSecond is prompt tokens ÷ prefill seconds.
	PrefillTokensPerSecond *float64 `json:"prefill_tokens_per_second,omitempty"`
	// DecodeTokensPerSecond is generated tokens ÷ decode seconds.
	DecodeTokensPerSecond *float64 `json:"decode_tokens_per_second,omitempty"`
	// TokensPerStep is generated tokens ÷ engine steps (prefill steps
	// included): the mean number of sequences a step decoded, the batch
	// the server ran.
	TokensPerStep *float64 `json:"tokens_per_step,omitempty"`
}

// speeds reads Speeds from a window's counters, nil when the server counts
// no time.
func speeds(w promscrape.Window) *Speeds {
	ratio := func(num, den promscrape.Counter) *float64 {
		n, okN := w.Counters[num]
		d, okD := w.Counters[den]
		if !okN || !okD || d <= 0 {
			return nil
		}
		return ptr(n / d)
	}
	sp := &Speeds{
		PrefillTokensPerSecond: ratio(promscrape.PromptTokens, promscrape.PrefillSeconds),
		DecodeTokensPerSecond:  ratio(promscrape.GenerationTokens, promscrape.DecodeSeconds),
	}
	sp.TokensPerStep = ratio(promscrape.GenerationTokens, promscrape.DecodeSteps)
	if sp.PrefillTokensPerSecond == nil && sp.DecodeTokensPerSecond == nil && sp.TokensPerStep == nil {
		return nil
	}
	return sp
}

// CounterSummary is how much a counter rose, and its mean rate.
type CounterSummary struct {
	Count     float64 `json:"count"`
	PerSecond float64 `json:"per_second"`
}

// RunWindow returns the wall-clock bounds of a client Result's measured
// window, whose times are offsets from the run epoch (record.Header.Start).
// Pass an epoch read from time.Now during the run, not one decoded from a
// file, so that its monotonic reading orders it against the scrape times.
func RunWindow(epoch time.Time, res *metrics.Result) (start, end time.Time) {
	return epoch.Add(time.Duration(res.Window.Start)), epoch.Add(time.Duration(res.Window.End))
}

// Compare reads the server's view of the window [start, end] from s and sets
// client's numbers beside it. s may be nil (server metrics were not scraped)
// and client may be nil (server side only): the Comparison then says what is
// missing. Failed scrapes, a server that exports nothing known and absent
// metrics are never errors either: they are listed in Missing.
//
// It fails only when end is before start. To compare a finished run, pass
// RunWindow's bounds and the Result they came from.
func Compare(s *promscrape.Series, start, end time.Time, client *metrics.Result) (*Comparison, error) {
	return CompareBounded(s, start, end, client, 0)
}

// CompareBounded is Compare for a client that kept at most bound requests
// at the server at once (a closed loop's concurrency, --max-concurrency;
// 0 for an unbounded load): the queue it fills is not taken for one that
// grows without bound (see Signals.Bound).
func CompareBounded(s *promscrape.Series, start, end time.Time, client *metrics.Result, bound int) (*Comparison, error) {
	if end.Before(start) {
		return nil, fmt.Errorf("compare server metrics: window end %s is before its start %s",
			end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	c := &Comparison{Start: start, End: end}
	if client != nil {
		c.ClientOutputTokens = &CounterSummary{Count: float64(client.Tokens.Output), PerSecond: client.Throughput.OutputTokensPerSecond}
		c.ResponseTimings = client.ServerTimings
		if pc := client.PromptCache; pc != nil && pc.PromptTokens > 0 {
			c.ClientCacheHitRate = ptr(pc.HitRate)
		}
	}
	if s == nil {
		c.missing("server metrics were not scraped")
		c.Status = Assess(Signals{Err: "server metrics were not scraped"})
		c.latencies(promscrape.Window{}, nil, client)
		return c, nil
	}
	c.URL, c.Model = s.URL, s.Model
	cov := s.Coverage()
	c.Scrape = &cov
	c.coverage(cov)
	w, err := s.Between(start, end)
	c.Scrapes, c.FailedScrapes = w.Scrapes, w.Failed
	if err != nil {
		if !errors.Is(err, promscrape.ErrNoSnapshots) {
			return nil, fmt.Errorf("compare server metrics of %s: %w", s.URL, err)
		}
		c.missing("no successful scrape around the window: no server view")
		c.Status = Assess(Signals{Err: firstFailure(cov, "no successful scrape around the window")})
		c.latencies(promscrape.Window{}, &cov, client)
		return c, nil
	}
	c.Engine = w.Engine
	if why := modelAbsent(s.Model, seriesModels(s)); why != "" {
		c.missing("%s", why)
		c.Status = Assess(Signals{Err: why})
		c.latencies(promscrape.Window{}, nil, client)
		return c, nil
	}
	c.CoveredSeconds = w.Duration().Seconds()
	c.Notes = w.Notes
	c.latencies(w, &cov, client)
	c.server(w, &cov)
	c.Speeds = speeds(w)
	c.SpecDecode = SpecDecodeOf(w)
	if n := specNote(w); n != "" {
		c.Notes = append(c.Notes, n)
	}
	c.Diffusion = DiffusionOf(w)
	if n := diffusionNote(w); n != "" {
		c.Notes = append(c.Notes, n)
	}
	sig := c.signals(s, w, client)
	sig.Bound = bound
	downAtEnd(&sig, s, end)
	c.Status = Assess(sig)
	if c.Running == nil && c.Waiting == nil && c.KVCacheUsage == nil && w.Engine != promscrape.Unknown &&
		!(slices.Contains(cov.Absent, string(promscrape.Running)) && slices.Contains(cov.Absent, string(promscrape.Waiting)) &&
			slices.Contains(cov.Absent, string(promscrape.KVCacheUsage))) {
		// The gauges exist but no scrape fell inside a short window:
		// that is not the server's fault.
		c.Status = Status{LevelUnknown, "no scrape inside the window to judge by: the run was shorter than the scrape interval"}
	}
	return c, nil
}

// coverage lists what the scrapes as a whole missed.
func (c *Comparison) coverage(cov promscrape.Coverage) {
	switch {
	case cov.Scrapes == 0:
		c.missing("no scrape was made")
		return
	case len(cov.Failed) > 0:
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(cov.Failed)) {
			kinds = append(kinds, fmt.Sprintf("%d %s", cov.Failed[k], k))
		}
		c.missing("%d of %d scrapes failed (%s); first: %s", cov.Scrapes-cov.OK, cov.Scrapes, strings.Join(kinds, ", "), cov.Gaps[0].Err)
	}
	if cov.OK > 0 && len(cov.Engines) == 0 {
		c.missing("no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at %s", c.URL)
	}
	if len(cov.Engines) > 1 {
		c.missing("the engine changed during the run (%v): the server was replaced", cov.Engines)
	}
	if n := len(cov.Skipped); n > 0 {
		shown := cov.Skipped[:min(n, 3)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		c.missing("series left out: %s%s", strings.Join(shown, "; "), more)
	}
}

// firstFailure is the first failed scrape's message, or def.
func firstFailure(cov promscrape.Coverage, def string) string {
	if len(cov.Gaps) > 0 && cov.Gaps[0].Err != "" {
		return cov.Gaps[0].Err
	}
	return def
}

// latencies fills TTFT, ITL and E2E from both sides. cov is nil when the
// server side is missing as a whole (already said once).
func (c *Comparison) latencies(w promscrape.Window, cov *promscrape.Coverage, client *metrics.Result) {
	for _, l := range []struct {
		out    *LatencyComparison
		hist   promscrape.Hist
		client metrics.Metric
	}{
		{&c.TTFT, promscrape.TTFT, metrics.MetricTTFT},
		{&c.ITL, promscrape.ITL, metrics.MetricITL},
		{&c.E2E, promscrape.E2E, metrics.MetricE2E},
	} {
		var d *metrics.Distribution
		if client != nil {
			d = client.Distribution(l.client)
		}
		c.latency(l.out, w, cov, l.hist, d)
	}
}

func (c *Comparison) latency(out *LatencyComparison, w promscrape.Window, cov *promscrape.Coverage, h promscrape.Hist, d *metrics.Distribution) {
	hg, serverOK := w.Histograms[h]
	if cov != nil {
		switch {
		case !serverOK:
			c.missing("server %s: %s", h, c.absence(cov, string(h)))
		case hg.Count == 0:
			c.missing("server %s: no observation in the window", h)
		}
	}
	out.ServerObservations = hg.Count
	if m, ok := hg.Mean(); serverOK && ok {
		out.ServerMean = &m
	}
	if serverOK {
		// A copy: the window's histograms are not the comparison's to keep.
		out.ServerHistogram = &promscrape.Histogram{Bounds: slices.Clone(hg.Bounds), Counts: slices.Clone(hg.Counts), Count: hg.Count, Sum: hg.Sum}
	}
	if d != nil && d.Count > 0 {
		out.ClientCount = d.Count
		out.ClientMean = ptr(d.Mean)
	}
	for _, q := range []struct {
		p   float64
		out **QuantileComparison
	}{{50, &out.P50}, {99, &out.P99}} {
		qc := &QuantileComparison{}
		if serverOK && hg.Count > 0 {
			if e, err := hg.Quantile(q.p / 100); err == nil {
				qc.Server = &e
			}
		}
		if d != nil && d.Count > 0 {
			if v, ok := d.Percentile(q.p); ok {
				qc.Client = &v
			} else {
				c.missing("client %s p%g: not computed (add %g to --metric-percentiles)", h, q.p, q.p)
			}
		}
		if e, v := qc.Server, qc.Client; e != nil && v != nil {
			if e.Overflow {
				c.missing("server %s p%g: above the highest bucket (%s), no gap", h, q.p, ms(e.Upper))
			} else {
				qc.Gap = &Range{Value: *v - e.Value, Lower: *v - e.Upper, Upper: *v - e.Lower}
			}
		}
		if qc.Server != nil || qc.Client != nil {
			*q.out = qc
		}
	}
}

// server fills the server-only quantities from the window.
func (c *Comparison) server(w promscrape.Window, cov *promscrape.Coverage) {
	c.Phases = w.Phases()
	for _, h := range []promscrape.Hist{promscrape.Queue, promscrape.Prefill, promscrape.Decode} {
		if _, ok := w.Histograms[h]; !ok {
			c.missing("server %s time: %s", h, c.absence(cov, string(h)))
		}
	}
	for _, g := range []struct {
		out  **GaugeSummary
		name promscrape.Gauge
	}{{&c.Running, promscrape.Running}, {&c.Waiting, promscrape.Waiting}, {&c.KVCacheUsage, promscrape.KVCacheUsage}} {
		st, ok := w.Gauges[g.name]
		if !ok {
			c.missing("%s: %s", strings.ReplaceAll(string(g.name), "_", " "), c.absence(cov, string(g.name)))
			continue
		}
		*g.out = &GaugeSummary{Peak: st.Peak, Mean: st.Mean, Samples: st.Samples}
	}
	for _, k := range []struct {
		out  **CounterSummary
		name promscrape.Counter
	}{{&c.Preemptions, promscrape.Preemptions}, {&c.GenerationTokens, promscrape.GenerationTokens}} {
		n, ok := w.Counters[k.name]
		if !ok {
			c.missing("%s: %s", strings.ReplaceAll(string(k.name), "_", " "), c.absence(cov, string(k.name)))
			continue
		}
		ps, _ := w.PerSecond(k.name)
		*k.out = &CounterSummary{Count: n, PerSecond: ps}
	}
	if r, ok := w.PrefixHitRate(); ok {
		c.PrefixCacheHitRate = &r
	} else if _, ok := w.Counters[promscrape.PrefixCacheQueries]; ok {
		c.missing("prefix cache hit rate: no lookup in the window")
	} else {
		c.missing("prefix cache hit rate: %s", c.absence(cov, string(promscrape.PrefixCacheQueries)))
	}
}

// absence says why the window lacks quantity q: the server never exported
// it, or the window could not measure it.
func (c *Comparison) absence(cov *promscrape.Coverage, q string) string {
	if slices.Contains(cov.Absent, q) {
		return "not exported by the server"
	}
	return "not measured in the window (see notes)"
}

// signals gathers what Assess judges about a finished run: mean running and
// waiting, peak KV usage, the preemption rate, the queue's share of latency,
// the longest stretch the queue held requests, and TTFT p99 in the window's
// second half against its first.
func (c *Comparison) signals(s *promscrape.Series, w promscrape.Window, client *metrics.Result) Signals {
	sig := Signals{Engine: w.Engine}
	if client != nil {
		if v, ok := client.Latency.TTFT.Percentile(99); ok {
			sig.ClientTTFTP99 = &v
		}
	}
	if c.Running != nil {
		sig.Running = ptr(c.Running.Mean)
	}
	if c.Waiting != nil {
		sig.Waiting = ptr(c.Waiting.Mean)
		sig.QueueFor, sig.QueueRise = queueTrend(s.Gauge(promscrape.Waiting), c.Start, c.End, false)
	}
	if c.KVCacheUsage != nil {
		sig.KVCacheUsage = ptr(c.KVCacheUsage.Peak)
	}
	if c.Preemptions != nil {
		sig.PreemptionsPerSecond = ptr(c.Preemptions.PerSecond)
	}
	sig.QueueShare = queueShare(c.Phases)
	mid := c.Start.Add(c.End.Sub(c.Start) / 2)
	sig.TTFTP99Before = p99(s, promscrape.TTFT, c.Start, mid)
	sig.TTFTP99 = p99(s, promscrape.TTFT, mid, c.End)
	return sig
}

// closingScrapeWithin is how soon after a window a recording's last
// scrape is taken to speak for the window's end: the scrape a bench run
// takes as it stops (see Recorder.Stop).
const closingScrapeWithin = 30 * time.Second

// downAtEnd marks sig with the failure that ended the window, when the
// scrapes up to end finished with a run of failures: the status is then
// the server's unreachability, not what the scrapes before it showed. A
// server killed late in a run fails only the scrape taken as the run
// stopped, after end: that closing scrape counts too when it found no
// server at all (a refused connection, not an answer such as a 503).
func downAtEnd(sig *Signals, s *promscrape.Series, end time.Time) {
	last := -1
	for i, smp := range s.Samples {
		if !smp.At.After(end) {
			last = i
		}
	}
	if n := len(s.Samples); n > 0 && last < n-1 {
		if c := s.Samples[n-1]; c.Kind == promscrape.FailDown && c.At.Sub(end) <= closingScrapeWithin && (last == n-2 || last < 0) {
			last = n - 1
		}
	}
	if last < 0 || s.Samples[last].OK() {
		return
	}
	first := last
	for first > 0 && !s.Samples[first-1].OK() {
		first--
	}
	smp := s.Samples[last]
	at := end
	if smp.At.After(at) {
		at = smp.At // the closing scrape, taken after the window
	}
	sig.Err, sig.ErrKind, sig.DownSince, sig.At, sig.Seen = smp.Err, smp.Kind, s.Samples[first].At, at, first > 0
}

// p99 is the server's p99 of h over [from, to], or nil when it has none.
func p99(s *promscrape.Series, h promscrape.Hist, from, to time.Time) *float64 {
	w, err := s.Between(from, to)
	if err != nil || w.Duration() <= 0 {
		return nil
	}
	e, err := w.Quantile(h, 0.99)
	if err != nil {
		return nil
	}
	return &e.Value
}

func (c *Comparison) missing(format string, args ...any) {
	c.Missing = append(c.Missing, fmt.Sprintf(format, args...))
}

func ptr(v float64) *float64 { return &v }

// modelAbsent says why a model filter matched nothing: the server reported
// models, none of them the one asked for. It returns "" when there is no
// filter, the model is there, or the server does not label its metrics by
// model (TGI, llama.cpp serve one).
func modelAbsent(model string, models []string) string {
	if model == "" || len(models) == 0 || slices.Contains(models, model) {
		return ""
	}
	return fmt.Sprintf("model %q is not in the server's metrics (it reports %s)", model, strings.Join(models, ", "))
}

// seriesModels is the models the latest successful scrape reported.
func seriesModels(s *promscrape.Series) []string {
	for i := len(s.Samples) - 1; i >= 0; i-- {
		if sn := s.Samples[i].Snapshot; sn != nil {
			return sn.Models
		}
	}
	return nil
}

// queueShare is the queue phase's share of latency, or nil when the server
// did not report it.
func queueShare(ps []promscrape.Phase) *float64 {
	for _, p := range ps {
		if p.Name == promscrape.Queue {
			return ptr(p.Share)
		}
	}
	return nil
}
