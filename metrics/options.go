package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
)

// DefaultSeriesStep is the time-series bucket width used when
// Options.SeriesStep is zero.
const DefaultSeriesStep = time.Second

// DefaultPercentiles returns the percentiles reported when
// Options.Percentiles is nil: 50, 90 and 99, as `vllm bench serve` does.
func DefaultPercentiles() []float64 { return []float64{50, 90, 99} }

// Options configures a Summary. The zero value is ready to use: default
// percentiles, linear interpolation, no SLO, warm-up excluded, one-second
// series.
type Options struct {
	// Percentiles to report for every distribution, each in [0, 100]; nil
	// means DefaultPercentiles. They are reported sorted, without
	// duplicates. An SLO gate that reads a percentile needs it here (see
	// slo.Gates.Require).
	Percentiles []float64

	// Method reads percentiles; the zero value is Linear.
	Method Method

	// Good is the per-request SLO: it reports whether a request met every
	// condition. nil means no SLO, and then goodput and attainment are not
	// reported. Failed requests are never good whatever Good says, so Good
	// sees only successful requests. It is called from Add and must not
	// call back into the Summary.
	Good func(Request) bool

	// SLO describes Good in words (for example slo.Conditions.String()); it
	// is copied into Result.Goodput so a summary file says what "good" meant.
	SLO string

	// IncludeWarmup counts warm-up records like any other. By default they
	// are left out of every statistic and of the window, and only counted.
	IncludeWarmup bool

	// SeriesStep is the width of a time-series bucket; zero means
	// DefaultSeriesStep. It must not be negative.
	SeriesStep time.Duration

	// Window, when positive, is how long the run measured, for records
	// that do not say when their requests were sent: another tool's
	// result that keeps each request's latencies but not its start, whose
	// records all start at the run epoch (see record.Header.Window). W
	// then runs from the earliest scheduled time for Window (never less
	// than the records span), every rate divides by it, and the time
	// series, which could only show where the records were put, is left
	// empty. Zero: the window spans the records, as DESIGN.md defines it.
	// It must not be negative.
	Window time.Duration
}

// Validate reports the first problem with o, naming the option. NewSummary
// does not fail on bad options (it clamps them, see NewSummary), so callers
// that take options from a user should call Validate first.
func (o Options) Validate() error {
	for i, p := range o.Percentiles {
		if math.IsNaN(p) || p < 0 || p > 100 {
			return fmt.Errorf("percentiles: item %d: %v is outside [0, 100]", i+1, p)
		}
	}
	if o.Method != Linear && o.Method != NearestRank {
		return fmt.Errorf("percentile method %d: unknown", int(o.Method))
	}
	if o.SeriesStep < 0 {
		return fmt.Errorf("series step %v: must not be negative", o.SeriesStep)
	}
	if o.Window < 0 {
		return fmt.Errorf("window %v: must not be negative", o.Window)
	}
	return nil
}

// normalized returns o with defaults filled in and percentiles clamped,
// sorted and de-duplicated, sharing no slice with the caller.
func (o Options) normalized() Options {
	ps := o.Percentiles
	if ps == nil {
		ps = DefaultPercentiles()
	}
	out := make([]float64, 0, len(ps))
	for _, p := range ps {
		if !math.IsNaN(p) {
			out = append(out, max(0, min(100, p)))
		}
	}
	slices.Sort(out)
	o.Percentiles = slices.Compact(out)
	if o.Method != NearestRank {
		o.Method = Linear
	}
	if o.SeriesStep <= 0 {
		o.SeriesStep = DefaultSeriesStep
	}
	return o
}

// errEmptyItem is returned (wrapped) for an empty element of a list.
var errEmptyItem = errors.New("empty item")

// ParsePercentiles parses a comma-separated percentile list such as
// "50,90,99" or "99.9" (the --metric-percentiles flag). Each item must be a
// plain decimal number in [0, 100]; errors name the item by position.
func ParsePercentiles(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("percentiles %q: empty", s)
	}
	items := strings.Split(s, ",")
	out := make([]float64, 0, len(items))
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("percentiles %q: item %d: %w", s, i+1, errEmptyItem)
		}
		if !human.IsPlainDecimal(it) {
			return nil, fmt.Errorf("percentiles %q: item %d: %q is not a number", s, i+1, it)
		}
		p, err := strconv.ParseFloat(it, 64)
		if err != nil {
			return nil, fmt.Errorf("percentiles %q: item %d: %w", s, i+1, err)
		}
		if p > 100 {
			return nil, fmt.Errorf("percentiles %q: item %d: %v is outside [0, 100]", s, i+1, p)
		}
		out = append(out, p)
	}
	return out, nil
}
