package sweep

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// Summary is a sweep read as a whole: its points in order of load and what
// they say.
type Summary struct {
	Options     Options // with defaults filled in
	Points      []Point // sorted by load; Picks index into it
	Power       Pick    // knee by Kleinrock's power
	Curvature   Pick    // knee by maximum curvature (Kneedle)
	GoodputPeak Pick
	Operating   Operating
	Verdict     string // the findings in plain words
}

// Analyze sorts a copy of points by load and finds the knees, the goodput
// peak and the operating point. Each load must appear once: combine
// repeats of one load with Merge first.
func Analyze(points []Point, o Options) (Summary, error) {
	if err := o.Validate(); err != nil {
		return Summary{}, err
	}
	if len(points) == 0 {
		return Summary{}, errors.New("analyze: no points")
	}
	if err := checkPoints(points); err != nil {
		return Summary{}, err
	}
	o = o.withDefaults()
	ps := slices.Clone(points)
	SortPoints(ps)
	s := Summary{
		Options:     o,
		Points:      ps,
		Power:       PowerKnee(ps, o),
		Curvature:   CurvatureKnee(ps, o),
		GoodputPeak: GoodputPeak(ps),
		Operating:   OperatingPoint(ps, o.Target),
	}
	s.Verdict = verdict(&s)
	return s, nil
}

// verdict states the findings of s in a few sentences, e.g. "At 24
// concurrent requests the server delivers 1,310 tok/s (5.24 req/s) with
// p99 TTFT 420 ms and p99 TPOT 38.0 ms; 96 % of requests met the SLO
// (target 90 %). Past 24, going to 128 multiplies p99 TTFT by 4.1× for
// 3 % more output throughput."
func verdict(s *Summary) string {
	var sentences []string
	add := func(parts ...string) { sentences = append(sentences, strings.Join(parts, "")) }
	o, ps := s.Options, s.Points

	head := -1
	switch {
	case s.Operating.Found:
		head = s.Operating.Index
		m := ps[head].Mean
		add("At ", ps[head].Load.Phrase(), " the server delivers ", rate(m.OutputThroughput, "tok/s"),
			" (", rate(m.RequestThroughput, "req/s"), ")", latencies(m),
			"; ", human.Percent(m.Attainment), " of requests met the SLO (target ", human.Percent(o.Target), ").")
		if s.Operating.Note != "" {
			add(capitalise(s.Operating.Note), ".")
		}
	default:
		add("No load met the SLO target of ", human.Percent(o.Target), " attainment: ", s.Operating.Note, ".")
		if s.Power.Found {
			head = s.Power.Index
			m := ps[head].Mean
			add("The knee (most ", o.Throughput.Label(), " per unit of ", o.Latency.Label(), ") is at ",
				ps[head].Load.Phrase(), ": ", rate(m.OutputThroughput, "tok/s"), latencies(m), ".")
		}
	}

	if head >= 0 && head < len(ps)-1 {
		add(beyond(o, ps[head], ps[len(ps)-1]))
	}

	if g := s.GoodputPeak; g.Found && g.Index != head {
		add("Goodput peaks at ", rate(g.Score, "tok/s"), " at ", ps[g.Index].Load.Phrase(), ".")
	} else if !g.Found {
		add("No load delivered goodput: no request met the SLO.")
	}

	add(kneeSentence(s))
	return strings.Join(sentences, " ")
}

// beyond compares the highest load with the headline one: how much latency
// the extra load cost and how much throughput it bought.
func beyond(o Options, head, last Point) string {
	lat, label := head.Mean.TTFT.P99, "p99 TTFT"
	latLast := last.Mean.TTFT.P99
	if !usable(lat) || !usable(latLast) || lat <= 0 {
		lat, latLast, label = o.Latency.Of(head.Mean), o.Latency.Of(last.Mean), o.Latency.Label()
	}
	thr, thrLast := o.Throughput.Of(head.Mean), o.Throughput.Of(last.Mean)
	var b strings.Builder
	b.WriteString("Past " + head.Load.Short() + ", going to " + last.Load.Short())
	if usable(lat) && usable(latLast) && lat > 0 {
		b.WriteString(" multiplies " + label + " by " + human.Factor(latLast/lat))
	} else {
		b.WriteString(" changes " + label + " by an unknown factor")
	}
	if usable(thr) && usable(thrLast) && thr > 0 {
		switch gain := thrLast/thr - 1; {
		case math.Abs(gain) < 0.005:
			b.WriteString(" for no more " + o.Throughput.Label())
		case gain < 0:
			b.WriteString(" for " + human.Percent(-gain) + " less " + o.Throughput.Label())
		default:
			b.WriteString(" for " + human.Percent(gain) + " more " + o.Throughput.Label())
		}
	}
	b.WriteString(".")
	return b.String()
}

// kneeSentence reports both knees, or why there is none.
func kneeSentence(s *Summary) string {
	pw, cv := s.Power, s.Curvature
	by := "throughput ÷ " + s.Options.Latency.Label()
	switch {
	case pw.Found && cv.Found && pw.Index == cv.Index:
		return "Knee: " + pw.Load.Short() + " by both " + by + " and curvature."
	case pw.Found && cv.Found:
		return "Knee: " + pw.Load.Short() + " by " + by + ", " + cv.Load.Short() + " by curvature."
	case pw.Found:
		return "Knee: " + pw.Load.Short() + " by " + by + "; none by curvature (" + cv.Note + ")."
	case cv.Found:
		return "Knee: " + cv.Load.Short() + " by curvature; none by " + by + " (" + pw.Note + ")."
	}
	return "No knee found: " + pw.Note + "."
}

// latencies is " with p99 TTFT 420 ms and p99 TPOT 38.0 ms", leaving out
// what the measurement did not define.
func latencies(m Sample) string {
	var parts []string
	if usable(m.TTFT.P99) {
		parts = append(parts, "p99 TTFT "+human.Seconds(m.TTFT.P99))
	}
	if usable(m.TPOT.P99) {
		parts = append(parts, "p99 TPOT "+human.Seconds(m.TPOT.P99))
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

func rate(v float64, unit string) string { return human.Number(v) + " " + unit }

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
