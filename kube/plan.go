package kube

import (
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

// Budget defaults: the default SLO's, used where the run's SLO leaves a
// latency unbounded.
const (
	defaultTTFT      = 500 * time.Millisecond
	defaultTPOT      = 50 * time.Millisecond
	defaultOutputLen = 256
)

// LatencyBudget is how long a request is expected in flight under the
// SLO: its e2e bound when it has one, else its TTFT bound plus the TPOT
// bound for each further token of outputLen (the default SLO's bounds
// where it sets none; 256 tokens when outputLen is 0).
func LatencyBudget(cs slo.Conditions, outputLen int) time.Duration {
	ttft, tpot := defaultTTFT, defaultTPOT
	for _, c := range cs {
		if c.Op != slo.LE && c.Op != slo.LT {
			continue
		}
		switch c.Metric {
		case metrics.MetricE2E:
			return c.Bound
		case metrics.MetricTTFT:
			ttft = c.Bound
		case metrics.MetricTPOT:
			tpot = c.Bound
		}
	}
	if outputLen <= 0 {
		outputLen = defaultOutputLen
	}
	return ttft + time.Duration(outputLen-1)*tpot
}

// ResultsSize sizes the results claim for a run of total requests of
// about outputLen tokens each: a record takes about 200 bytes and 10 a
// chunk, the merged file as much again, and there is room for retries and
// reports. At least 1 GiB; 10 GiB when total is unknown (0).
func ResultsSize(total int64, outputLen int) string {
	if total <= 0 {
		return "10Gi"
	}
	if outputLen <= 0 {
		outputLen = defaultOutputLen
	}
	bytes := float64(total) * float64(200+10*outputLen) * 2 * 2
	return fmt.Sprintf("%dGi", max(1, int64(math.Ceil(bytes/(1<<30)))))
}

// MergeTimeout is how long the merge step waits for the shards: until the
// start, the schedule's span and twice a request's latency budget, plus a
// quarter of an hour for pods to be scheduled, pulled and retried.
func MergeTimeout(untilStart, span, latency time.Duration) time.Duration {
	return (max(untilStart, 0) + span + 2*latency + 15*time.Minute).Round(time.Minute)
}

var release = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// DefaultImage is the image of a release: this build's version when it is
// one, else the latest.
func DefaultImage(version string) string {
	tag := "latest"
	if release.MatchString(version) {
		tag = version
	}
	return "ghcr.io/goodput-dev/goodput:" + tag
}
