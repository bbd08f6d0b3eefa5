package workload

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/goodput-dev/goodput/internal/bom"
	"github.com/goodput-dev/goodput/tokenizer"
)

// Random streams of the txt-slices dataset.
const (
	rngSlices          = 0x736c69636573 // "slices": each prompt's start
	rngSlicesCalibrate = 0x736c63616c   // "slcal": calibration samples
)

// Limits of the txt-slices text: a larger file is a mistake, and a slow
// URL must not hold the run forever.
const (
	maxTextBytes = 256 << 20
	textFetch    = 2 * time.Minute
)

// NewTxtSlices builds the txt-slices dataset as `vllm bench serve
// --dataset-name txt-slices` does: the text of --dataset-path (a file, or
// an http or https URL fetched once) is tokenized whole, and each of
// c.Limit prompts (1000 when 0; at most 10,000, which a longer run sends
// again in turn) is the --random-input-len tokens that follow a start
// drawn at random, going on from the text's beginning when they pass its
// end; every prompt asks for --random-output-len tokens.
// Prompts are real text, so they go out as text, never as token ids. A
// slice never splits a character: its ends move to whole ones.
//
// Without a Counter, the built-in tokenizer cuts the slices and counts
// them (InputTokens). With one, the server's count cuts them, since one
// text's words count so differently from another's (a slice of names or
// kana against one of plain prose) that one ratio for all would miss by
// 10 % and more:
//
//  1. As Random does, on 16 sample slices of this text, it finds how
//     many built-in tokens the Counter counts as --random-input-len, and
//     averages the ratios less the two highest and two lowest.
//  2. Each slice starts at that ratio's length and is counted, then
//     lengthened or shortened by what it missed, by the ratio and then
//     between the lengths that counted short and long, until it is within
//     0.5 % (exact below 200 tokens), up to six counts; it keeps the
//     closest, and InputTokens is the Counter's count of it.
//
// That is about 90 counts and then 1–6 per prompt, eight at a time, all
// inside NewTxtSlices: a run never waits on the server's tokenizer.
func NewTxtSlices(c Config) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	text, err := readText(c.Path)
	if err != nil {
		return nil, err
	}
	label := "txt-slices " + c.Path
	s := slicer{ids: tokenizer.Encode(text), n: c.Random.InputLen}
	if c.Counter != nil {
		if err := s.calibrate(c.Counter, c.Seed); err != nil {
			return nil, fmt.Errorf("%s: fitting slices to the server's tokenizer: %w", label, err)
		}
	}
	n := c.Limit
	if n == 0 {
		n = generatedItems
	}
	n = min(n, maxGeneratedItems)
	items := make([]Item, n)
	g, gctx := errgroup.WithContext(context.Background())
	g.SetLimit(sliceCounters)
	for i := range items {
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil // another slice failed, and with it the dataset
			}
			start := rand.New(rand.NewPCG(c.Seed^rngSlices, uint64(i))).IntN(len(s.ids))
			p, in, err := s.slice(c.Counter, start)
			if err != nil {
				return fmt.Errorf("%s: fitting slice %d to the server's tokenizer: %w", label, i, err)
			}
			items[i] = Item{Prompt: p, InputTokens: in, OutputTokens: c.Request.capOutput(c.Random.OutputLen)}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s (%d tokens of text)", label, len(s.ids))
	return &Dataset{name: name, items: items, stats: DatasetStats{Entries: n, Usable: n, Kept: n}}, nil
}

// How the slices are fitted to a Counter: how many are counted at once,
// and how many counts one slice may take.
const (
	sliceCounters = 8
	sliceCounts   = 6
)

// slicer cuts prompts out of a text's token ids.
type slicer struct {
	ids   []int   // the text, tokenized whole
	n     int     // --random-input-len
	scale float64 // built-in tokens per target token; 0 for 1
}

// length is how many built-in tokens a slice takes.
func (s *slicer) length() int {
	if s.scale == 0 {
		return s.n
	}
	return max(1, int(math.Round(float64(s.n)*s.scale)))
}

// cycle returns n ids of the text from start, going on from its
// beginning past its end.
func (s *slicer) cycle(start, n int) []int {
	out := make([]int, 0, n)
	for len(out) < n {
		k := min(n-len(out), len(s.ids)-start)
		out = append(out, s.ids[start:start+k]...)
		start = 0
	}
	return out
}

// prompt is the text of n tokens from start, its ends moved to whole
// characters; when that leaves nothing (n tokens of one character's
// bytes), it takes more tokens until it holds one.
func (s *slicer) prompt(start, n int) string {
	p := ""
	for k := n; p == "" && k <= n+utf8.UTFMax; k++ {
		p = wholeRunes(tokenizer.Decode(s.cycle(start, k)))
	}
	return p
}

// slice returns the prompt that starts at token start and its length:
// count's when count is set, which fits it (see NewTxtSlices), else the
// built-in tokenizer's.
func (s *slicer) slice(count Counter, start int) (string, int, error) {
	n := s.length()
	if count == nil {
		p := s.prompt(start, n)
		return p, tokenizer.Count(p), nil
	}
	best, bestLen, miss := "", 0, math.MaxInt
	// The lengths known to count short of the target and past it: the
	// first step goes by the calibrated ratio, and later ones interpolate
	// between the two, since one part of a text counts unlike another.
	lo, cLo, hi, cHi := -1, 0, -1, 0
	for range sliceCounts {
		p := s.prompt(start, n)
		c, err := count(p)
		if err != nil {
			return "", 0, err
		}
		if d := abs(c - s.n); d < miss {
			best, bestLen, miss = p, c, d
		}
		if miss <= s.n/200 {
			break
		}
		if c < s.n {
			lo, cLo = n, c
		} else {
			hi, cHi = n, c
		}
		switch {
		case lo >= 0 && hi >= 0 && hi-lo <= 1:
			return best, bestLen, nil // adjacent lengths straddle it
		case lo >= 0 && hi >= 0:
			n = lo + int(math.Round(float64(hi-lo)*float64(s.n-cLo)/float64(cHi-cLo)))
			n = min(max(n, lo+1), hi-1)
		default:
			step := int(math.Round(float64(s.n-c) * s.scale))
			if step == 0 {
				step = (s.n - c) / abs(s.n-c)
			}
			n = max(1, n+step)
		}
	}
	return best, bestLen, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// calibrate sets s.scale from sample slices fitted to count (see
// NewTxtSlices).
func (s *slicer) calibrate(count Counter, seed uint64) error {
	ratios := make([]float64, 0, calibrationSamples)
	for k := range calibrationSamples {
		start := rand.New(rand.NewPCG(seed^rngSlicesCalibrate, uint64(k))).IntN(len(s.ids))
		// The text goes on as it would in a prompt, so a longer start
		// keeps the counted one.
		ids := s.cycle(start, 2*s.n+16)
		more := func(ids []int) []int { return append(ids, s.cycle((start+len(ids))%len(s.ids), len(ids))...) }
		fit, err := fitStart(count, s.n, ids, more)
		if err != nil {
			return fmt.Errorf("sample %d: %w", k, err)
		}
		ratios = append(ratios, float64(len(fit))/float64(s.n))
	}
	s.scale = trimmedMean(ratios)
	return nil
}

// wholeRunes drops the bytes of a character cut at either end of s.
func wholeRunes(s string) string {
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	if s == "" {
		return s
	}
	j := len(s) - 1
	for j > 0 && len(s)-j < utf8.UTFMax && !utf8.RuneStart(s[j]) {
		j--
	}
	if !utf8.FullRuneInString(s[j:]) {
		s = s[:j]
	}
	return s
}

// readText reads the txt-slices text from a file or an http(s) URL. It
// must be UTF-8, as vLLM reads it, and hold at least one token.
func readText(path string) (string, error) {
	var r io.Reader
	if IsURL(path) {
		body, err := fetchText(path)
		if err != nil {
			return "", err
		}
		defer body.Close()
		r = body
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("--dataset-path: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(bom.Skip(r), maxTextBytes+1))
	if err != nil {
		return "", fmt.Errorf("--dataset-path %s: %w", path, err)
	}
	if len(b) > maxTextBytes {
		return "", fmt.Errorf("--dataset-path %s: more than %d MiB of text; txt-slices reads the whole text, so give a smaller one", path, maxTextBytes>>20)
	}
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, size := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return "", fmt.Errorf("--dataset-path %s: not UTF-8 text (byte %d)", path, off)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", fmt.Errorf("--dataset-path %s: the text is empty", path)
	}
	return string(b), nil
}

// IsURL reports whether a --dataset-path names an http or https URL,
// which only txt-slices takes: it is fetched, not opened.
func IsURL(path string) bool {
	return strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://")
}

// fetchText GETs url, failing with its status when it is not 200.
func fetchText(url string) (io.ReadCloser, error) {
	client := &http.Client{Timeout: textFetch}
	resp, err := client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("--dataset-path %s: GET answered %s", url, resp.Status)
	}
	return resp.Body, nil
}

// validateTxtSlices checks the flags of txt-slices: the text, and the
// random dataset's lengths, which it takes. Its slices all have
// --random-input-len tokens, as in vLLM, which reads neither
// --random-range-ratio nor --random-prefix-len for it: either is refused
// rather than left to do nothing.
func (c Config) validateTxtSlices() []error {
	var errs []error
	if c.Path == "" {
		errs = append(errs, fmt.Errorf("--dataset-name txt-slices needs --dataset-path, a text file or an http(s) URL of one"))
	}
	r := c.Random
	if r.RangeRatio != 0 || r.OutputRangeRatio != nil {
		errs = append(errs, fmt.Errorf("--random-range-ratio does not apply to --dataset-name txt-slices: every slice has --random-input-len tokens (vLLM ignores it there too)"))
	}
	if r.PrefixLen != 0 {
		errs = append(errs, fmt.Errorf("--random-prefix-len does not apply to --dataset-name txt-slices (vLLM ignores it there too)"))
	}
	if r.InputLen < 1 || r.InputLen > MaxPromptTokens {
		errs = append(errs, fmt.Errorf("--random-input-len must be in [1, %d] for txt-slices, got %d", MaxPromptTokens, r.InputLen))
	}
	if r.OutputLen < 1 || r.OutputLen > MaxOutputTokens {
		errs = append(errs, fmt.Errorf("--random-output-len must be in [1, %d], got %d", MaxOutputTokens, r.OutputLen))
	}
	return errs
}
