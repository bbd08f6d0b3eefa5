package sweeprun

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/sweep"
)

// Record labels a sweep sets on every record of a measurement. A --label of
// the same key is refused, so that a record always says which measurement
// it belongs to.
const (
	LabelPoint  = "point"  // the point's name: "c16", "r2.5", "rinf"
	LabelLoad   = "load"   // the load's canonical form: "concurrency=16"
	LabelRepeat = "repeat" // 1 for the first measurement of the load
)

// Measurement is one load measured once: the Repeat-th measurement of Load.
type Measurement struct {
	Load   sweep.Load
	Repeat int // 1-based
}

// PointName is the short name of a load used in file names and labels:
// "c16" for 16 concurrent requests, "r2.5" for 2.5 req/s, "rinf" for an
// unbounded rate.
func PointName(l sweep.Load) string {
	if l.Mode == sweep.ModeConcurrency {
		return "c" + strconv.FormatFloat(l.Value, 'f', -1, 64)
	}
	if math.IsInf(l.Value, 1) {
		return "rinf"
	}
	return "r" + strconv.FormatFloat(l.Value, 'f', -1, 64)
}

// Name is the measurement's file name stem: the point name, with "-r<k>"
// appended for repeats after the first.
func (m Measurement) Name() string {
	if m.Repeat <= 1 {
		return PointName(m.Load)
	}
	return fmt.Sprintf("%s-r%d", PointName(m.Load), m.Repeat)
}

// Seed returns the seed of the measurement for a sweep seeded with base:
// base for the first repeat, base + k − 1 for the k-th.
func (m Measurement) Seed(base uint64) uint64 {
	return base + uint64(max(m.Repeat, 1)-1)
}

// PromptSeed returns the seed of the measurement's prompts, for a sweep
// seeded with base whose loads each get prompts of their own: Seed, moved
// by a number the load's name fixes, so that it stays the same when a
// sweep is resumed or its loads are measured in another order.
func (m Measurement) PromptSeed(base uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(PointName(m.Load)))
	return m.Seed(base) + h.Sum64()
}

// Labels returns extra with the measurement's own labels added.
func (m Measurement) Labels(extra map[string]string) map[string]string {
	out := make(map[string]string, len(extra)+3)
	for k, v := range extra {
		out[k] = v
	}
	out[LabelPoint] = PointName(m.Load)
	out[LabelLoad] = m.Load.String()
	out[LabelRepeat] = strconv.Itoa(max(m.Repeat, 1))
	return out
}

// parseMeasurement reads a measurement back from its labels, as a summary
// file's run header holds them.
func parseMeasurement(labels map[string]string) (Measurement, error) {
	raw, ok := labels[LabelLoad]
	if !ok {
		return Measurement{}, fmt.Errorf("no %q label: not a sweep measurement", LabelLoad)
	}
	l, err := sweep.ParseLoad(raw)
	if err != nil {
		return Measurement{}, fmt.Errorf("label %s=%q: %w", LabelLoad, raw, err)
	}
	rep := 1
	if s, ok := labels[LabelRepeat]; ok {
		rep, err = strconv.Atoi(strings.TrimSpace(s))
		if err != nil || rep < 1 || rep > sweep.MaxRepeats {
			return Measurement{}, fmt.Errorf("label %s=%q: want a whole number from 1 to %d", LabelRepeat, s, sweep.MaxRepeats)
		}
	}
	return Measurement{Load: l, Repeat: rep}, nil
}

// reservedLabel returns the first key of labels that a sweep sets itself,
// or "".
func reservedLabel(labels map[string]string) string {
	for _, k := range []string{LabelPoint, LabelLoad, LabelRepeat} {
		if _, ok := labels[k]; ok {
			return k
		}
	}
	return ""
}
