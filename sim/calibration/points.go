package calibration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Point is one published measurement.
type Point struct {
	ID     string
	Source string
	Line   int // in the points file

	GPU            string
	Model          string // the model's name as published
	Precision      string
	TensorParallel int // GPUs the model was split over (1 unless the row says otherwise)

	Input, Output Lengths
	Load          Load
	Chat          bool // sent to /v1/chat/completions
	Offline       bool // vLLM's offline LLM class rather than its API server

	Published Metrics
}

// Metrics are a point's figures, published or simulated. A zero field is
// not known (published) or not applicable.
type Metrics struct {
	OutputTokS float64 // output tokens per second over the run
	TTFT       float64 // ms
	TPOT       float64 // ms
	TTFTStat   Stat
	TPOTStat   Stat
}

// Stat says how a latency figure summarises the requests.
type Stat struct {
	Median bool
	// PerTokens, when positive, makes the figure the mean end-to-end
	// latency divided by this many tokens ("e2e/128"), the way offline
	// latency benchmarks that do not stream are compared with TPOT.
	PerTokens int
}

func (s Stat) String() string {
	switch {
	case s.PerTokens > 0:
		return fmt.Sprintf("e2e/%d", s.PerTokens)
	case s.Median:
		return "median"
	}
	return "mean"
}

// Lengths describes how a workload's prompt or output lengths are drawn.
type Lengths struct {
	Min, Max int     // uniform on [Min, Max] when Mean is 0; Min = Max is a fixed length
	Mean     float64 // log-normal with this mean, for datasets described by their mean
	ShareGPT bool    // a ShareGPT-like dataset: vllm bench serve's length limits apply
	// Full says that answers ran to the dataset's lengths (ignore_eos),
	// rather than ending at the model's own end of sequence, which cuts the
	// longest ones short.
	Full bool
}

func (l Lengths) String() string {
	switch {
	case l.Mean > 0 && l.ShareGPT:
		return fmt.Sprintf("ShareGPT-like, mean %.0f", l.Mean)
	case l.Mean > 0:
		return fmt.Sprintf("log-normal, mean %.0f", l.Mean)
	case l.Min == l.Max:
		return strconv.Itoa(l.Min)
	}
	return fmt.Sprintf("%d–%d", l.Min, l.Max)
}

// Load is how the requests were sent.
type Load struct {
	Concurrency int     // closed loop of this many; 0 for open loop
	Rate        float64 // Poisson arrivals per second; 0 with Concurrency 0: all at once
	Requests    int
}

func (l Load) String() string {
	switch {
	case l.Concurrency > 0:
		return fmt.Sprintf("concurrency %d, %d requests", l.Concurrency, l.Requests)
	case l.Rate > 0:
		return fmt.Sprintf("%g req/s Poisson, %d requests", l.Rate, l.Requests)
	}
	return fmt.Sprintf("%d requests at once", l.Requests)
}

// columns are the points file's columns, in any order; others are ignored.
var columns = []string{"id", "source", "gpu", "model", "precision", "in_len", "out_len",
	"concurrency_or_rate", "pub_out_tok_s", "pub_ttft_ms", "pub_ttft_stat", "pub_tpot_ms", "pub_tpot_stat", "notes"}

// LoadPoints reads the points file at path (see ReadPoints).
func LoadPoints(path string) ([]Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPoints(f, path)
}

// ReadPoints reads a tab-separated points file: a header naming the columns
// (id, source, gpu, model, precision, in_len, out_len, concurrency_or_rate,
// pub_out_tok_s, pub_ttft_ms, pub_ttft_stat, pub_tpot_ms, pub_tpot_stat,
// notes), then one point per line. name prefixes errors, which give the
// line and column at fault.
func ReadPoints(r io.Reader, name string) ([]Point, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, fmt.Errorf("%s: empty file: want a header line", name)
	}
	col := map[string]int{}
	for i, h := range strings.Split(sc.Text(), "\t") {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: no column %q in the header", name, c)
		}
	}
	var points []Point
	seen := map[string]int{}
	for line := 2; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(fields) {
				return strings.TrimSpace(fields[i])
			}
			return ""
		}
		p, err := parsePoint(get)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if prev, ok := seen[p.ID]; ok {
			return nil, fmt.Errorf("%s:%d: id %q already on line %d", name, line, p.ID, prev)
		}
		seen[p.ID] = line
		p.Line = line
		points = append(points, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%s: no points", name)
	}
	return points, nil
}

func parsePoint(get func(string) string) (Point, error) {
	p := Point{ID: get("id"), Source: get("source"), Precision: get("precision"), TensorParallel: 1}
	if p.ID == "" {
		return Point{}, errors.New("id: empty")
	}
	p.GPU, p.TensorParallel = parseGPU(get("gpu"))
	p.Model = get("model")
	notes := get("notes")
	if tp := tensorParallel(get("model") + " " + get("source") + " " + notes); tp > 1 {
		p.TensorParallel = tp
	}
	if p.TensorParallel > maxGPUs {
		return Point{}, fmt.Errorf("%d GPUs: more than %d", p.TensorParallel, maxGPUs)
	}
	var err error
	if p.Input, err = parseLengths(get("in_len")); err != nil {
		return Point{}, fmt.Errorf("in_len %q: %w", get("in_len"), err)
	}
	if p.Output, err = parseLengths(get("out_len")); err != nil {
		return Point{}, fmt.Errorf("out_len %q: %w", get("out_len"), err)
	}
	load := get("concurrency_or_rate")
	if p.Load, err = parseLoad(load, notes); err != nil {
		return Point{}, fmt.Errorf("concurrency_or_rate %q: %w", load, err)
	}
	lower := strings.ToLower(load + " " + get("engine_version"))
	p.Offline = strings.Contains(lower, "offline")
	p.Chat = chatRe.MatchString(strings.ToLower(get("in_len") + " " + notes))
	pub := &p.Published
	for _, f := range []struct {
		col string
		dst *float64
	}{{"pub_out_tok_s", &pub.OutputTokS}, {"pub_ttft_ms", &pub.TTFT}, {"pub_tpot_ms", &pub.TPOT}} {
		s := get(f.col)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || v > 1e12 {
			return Point{}, fmt.Errorf("%s %q: want a positive number", f.col, s)
		}
		*f.dst = v
	}
	if pub.OutputTokS == 0 && pub.TTFT == 0 && pub.TPOT == 0 {
		return Point{}, errors.New("no published figure: give pub_out_tok_s, pub_ttft_ms or pub_tpot_ms")
	}
	if pub.TTFTStat, err = parseStat(get("pub_ttft_stat")); err != nil {
		return Point{}, fmt.Errorf("pub_ttft_stat: %w", err)
	}
	if pub.TPOTStat, err = parseStat(get("pub_tpot_stat")); err != nil {
		return Point{}, fmt.Errorf("pub_tpot_stat: %w", err)
	}
	return p, nil
}

var (
	chatRe    = regexp.MustCompile(`openai-chat|chat/completions|,\s*chat\)`)
	rangeRe   = regexp.MustCompile(`^(\d+)\s*[-–]\s*(\d+)\b`)
	fixedRe   = regexp.MustCompile(`^(\d+)\b`)
	meanRe    = regexp.MustCompile(`mean\s*[~≈]?\s*(\d+(?:\.\d+)?)`)
	concRe    = regexp.MustCompile(`\bc\s*=\s*(\d+)`)
	rateRe    = regexp.MustCompile(`\brate\s*=\s*(\d+(?:\.\d+)?)`)
	batchRe   = regexp.MustCompile(`\bbatch\s+(?:of\s+)?(\d+)`)
	promptsRe = regexp.MustCompile(`(\d+)\s+(?:prompts|requests)`)
	tpRe      = regexp.MustCompile(`(?i)(?:\btp\s*=?\s*|_tp)(\d+)\b|tensor[- _]parallel(?:[- _]size)?\s*=?\s*(\d+)`)
	gpusRe    = regexp.MustCompile(`^(\d+)\s*[x×]\s*(.+)$|^(.+?)\s*[x×]\s*(\d+)$`)
	perTokRe  = regexp.MustCompile(`e2e\s*/\s*(\d+)`)
)

// maxRequests bounds the requests of one point.
const maxRequests = 1_000_000

// maxGPUs bounds the GPUs of one point.
const maxGPUs = 1024

// maxLen bounds a length in tokens.
const maxLen = 1 << 24

// parseGPU splits "2x H100-SXM" or "H100-SXM ×2" into the GPU and the count.
func parseGPU(s string) (string, int) {
	if m := gpusRe.FindStringSubmatch(s); m != nil {
		count, name := m[1], m[2]
		if count == "" {
			count, name = m[4], m[3]
		}
		n, err := strconv.Atoi(count)
		if err != nil {
			n = maxGPUs + 1 // refused by the caller
		}
		return strings.TrimSpace(name), max(n, 1)
	}
	return s, 1
}

// tensorParallel finds "tp2", "TP=4" or "tensor-parallel-size 8" in s; 0
// when there is none.
func tensorParallel(s string) int {
	m := tpRe.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1] + m[2])
	if err != nil {
		return maxGPUs + 1 // refused by the caller
	}
	return n
}

func parseLengths(s string) (Lengths, error) {
	lower := strings.ToLower(s)
	if m := rangeRe.FindStringSubmatch(lower); m != nil {
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		if lo < 1 || hi < lo || hi > maxLen {
			return Lengths{}, fmt.Errorf("want a range lo-hi with 1 ≤ lo ≤ hi ≤ %d", maxLen)
		}
		return Lengths{Min: lo, Max: hi}, nil
	}
	if m := meanRe.FindStringSubmatch(lower); m != nil {
		mean, _ := strconv.ParseFloat(m[1], 64)
		if !(mean >= 1) || mean > maxLen {
			return Lengths{}, fmt.Errorf("mean %v: want 1 to %d tokens", mean, maxLen)
		}
		return Lengths{Mean: mean, ShareGPT: strings.Contains(lower, "sharegpt"), Full: strings.Contains(lower, "ignore_eos")}, nil
	}
	if m := fixedRe.FindStringSubmatch(lower); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > maxLen {
			return Lengths{}, fmt.Errorf("want 1 to %d tokens", maxLen)
		}
		return Lengths{Min: n, Max: n}, nil
	}
	return Lengths{}, errors.New(`want a length ("128"), a range ("128-384") or a dataset's mean ("ShareGPT (mean 206)")`)
}

func parseLoad(s, notes string) (Load, error) {
	lower := strings.ToLower(s)
	var l Load
	switch m := concRe.FindStringSubmatch(lower); {
	case m != nil:
		var err error
		l.Concurrency, err = strconv.Atoi(m[1])
		if err != nil || l.Concurrency < 1 || l.Concurrency > 1_000_000 {
			return Load{}, errors.New("concurrency must be between 1 and 1,000,000")
		}
	case rateRe.MatchString(lower):
		l.Rate, _ = strconv.ParseFloat(rateRe.FindStringSubmatch(lower)[1], 64)
		if !(l.Rate > 0) || l.Rate > 1e9 {
			return Load{}, errors.New("rate must be positive and finite")
		}
	case strings.Contains(lower, "rate=inf") || strings.Contains(lower, "at once") || batchRe.MatchString(lower):
	default:
		return Load{}, errors.New(`want "c=N", "rate=R Poisson", "rate=inf", "N prompts at once" or "batch N"`)
	}
	for _, text := range []string{lower, strings.ToLower(notes)} {
		m := batchRe.FindStringSubmatch(text)
		if m == nil {
			m = promptsRe.FindStringSubmatch(text)
		}
		if m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 {
				return Load{}, fmt.Errorf("%q requests: want at least 1", m[1])
			}
			l.Requests = n
			break
		}
	}
	if l.Requests == 0 {
		// Not published: enough requests for a steady state at the
		// concurrency, as a benchmark would send.
		l.Requests = max(200, 10*l.Concurrency)
	}
	if l.Requests > maxRequests {
		return Load{}, fmt.Errorf("%d requests: more than a calibration run needs", l.Requests)
	}
	return l, nil
}

func parseStat(s string) (Stat, error) {
	lower := strings.ToLower(strings.TrimSpace(s))
	if m := perTokRe.FindStringSubmatch(lower); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return Stat{}, fmt.Errorf("%q: divide by at least 1 token", s)
		}
		return Stat{PerTokens: n}, nil
	}
	switch lower {
	case "", "mean", "derived":
		return Stat{}, nil
	case "median", "p50":
		return Stat{Median: true}, nil
	}
	return Stat{}, fmt.Errorf("%q: want mean, median or e2e/N", s)
}
