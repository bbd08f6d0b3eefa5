package serverview

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/promscrape"
)

// SpecDecode is a speculative decoder's account of the window, from the
// counters vLLM's bench serve reads for its Speculative Decoding block.
type SpecDecode struct {
	// FromGauges says the figures are the server's own gauges of its
	// recent steps, averaged over the scrapes in the window (SGLang's),
	// not counts over the window: the counts are then zero.
	FromGauges bool `json:"from_gauges,omitempty"`

	Drafts         float64 `json:"drafts"`          // drafts the proposer made
	DraftTokens    float64 `json:"draft_tokens"`    // tokens in them
	AcceptedTokens float64 `json:"accepted_tokens"` // of those, accepted by the target model
	// AcceptanceRate is AcceptedTokens ÷ DraftTokens, 0–1; from gauges,
	// the server's own, nil when it exports none.
	AcceptanceRate *float64 `json:"acceptance_rate,omitempty"`
	// AcceptanceLength is 1 + AcceptedTokens ÷ Drafts: the tokens one
	// target-model step yields, its own included.
	AcceptanceLength float64 `json:"acceptance_length"`
	// ByPosition is, for each draft position the server reported, the
	// share of drafts whose token at that position was accepted; in
	// position order.
	ByPosition []PositionAcceptance `json:"by_position,omitempty"`
}

// PositionAcceptance is the acceptance at one draft position.
type PositionAcceptance struct {
	Position int     `json:"position"`
	Rate     float64 `json:"rate"` // accepted at Position ÷ drafts, 0–1
}

// SpecDecodeOf returns the window's speculative decoding, or nil when the
// server drafted no token in it (or does not decode speculatively), as
// vLLM's client reports none then, or when it says it accepted more draft
// tokens than it drafted.
func SpecDecodeOf(w promscrape.Window) *SpecDecode {
	tokens := w.Counters[promscrape.SpecDraftTokens]
	drafts, ok := w.Counters[promscrape.SpecDrafts]
	if tokens <= 0 || !ok {
		return specGauges(w)
	}
	accepted := w.Counters[promscrape.SpecAcceptedTokens]
	if accepted > tokens || accepted < 0 {
		return nil // counters that contradict each other (see specNote)
	}
	sd := &SpecDecode{Drafts: drafts, DraftTokens: tokens, AcceptedTokens: accepted, AcceptanceRate: ptr(accepted / tokens)}
	if drafts > 0 {
		sd.AcceptanceLength = 1 + accepted/drafts
		byPos := map[int]float64{}
		for key, n := range w.CounterSeries[promscrape.SpecAcceptedByPosition] {
			if p, ok := labelInt(key, "position"); ok {
				byPos[p] += n // summed over engines and models
			}
		}
		for p, n := range byPos {
			sd.ByPosition = append(sd.ByPosition, PositionAcceptance{Position: p, Rate: n / drafts})
		}
		slices.SortFunc(sd.ByPosition, func(a, b PositionAcceptance) int { return cmp.Compare(a.Position, b.Position) })
	}
	return sd
}

// specGauges reads a speculative decoder that reports itself by gauges
// (SGLang's accept length and rate) rather than counters; nil when it
// exports none, or reports no accepted step (a length below 1).
func specGauges(w promscrape.Window) *SpecDecode {
	length, ok := w.Gauges[promscrape.SpecAcceptLength]
	if !ok || length.Mean < 1 {
		return nil
	}
	sd := &SpecDecode{FromGauges: true, AcceptanceLength: length.Mean}
	if rate, ok := w.Gauges[promscrape.SpecAcceptRate]; ok && rate.Mean >= 0 && rate.Mean <= 1 {
		sd.AcceptanceRate = ptr(rate.Mean)
	}
	return sd
}

// labelInt reads label name as an integer from a series key in Prometheus
// form (`a="1",position="2"`), whose values are quoted Go strings.
func labelInt(key, name string) (int, bool) {
	for rest := key; rest != ""; {
		k, after, ok := strings.Cut(rest, "=")
		if !ok {
			return 0, false
		}
		q, err := strconv.QuotedPrefix(after)
		if err != nil {
			return 0, false
		}
		rest = strings.TrimPrefix(after[len(q):], ",")
		if k != name {
			continue
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

// String says the decoding in one line: its acceptance, the tokens a step
// yields and the acceptance by position.
func (sd *SpecDecode) String() string {
	if sd.FromGauges {
		s := fmt.Sprintf("%.2f tokens per step", sd.AcceptanceLength)
		if sd.AcceptanceRate != nil {
			s = fmt.Sprintf("%.2f %% of draft tokens accepted, ", 100**sd.AcceptanceRate) + s
		}
		return s + " (the server's gauges, mean over the window's scrapes)"
	}
	s := fmt.Sprintf("%.2f %% of %.0f draft tokens accepted, %.2f tokens per step", 100*value(sd.AcceptanceRate), sd.DraftTokens, sd.AcceptanceLength)
	if len(sd.ByPosition) > 0 {
		parts := make([]string, len(sd.ByPosition))
		for i, p := range sd.ByPosition {
			parts[i] = fmt.Sprintf("%d: %.1f %%", p.Position, 100*p.Rate)
		}
		s += "; by position " + strings.Join(parts, ", ")
	}
	return s
}

// specNote says why a window whose server drafted tokens has no
// SpecDecode: its counts contradict each other; "" otherwise.
func specNote(w promscrape.Window) string {
	tokens, accepted := w.Counters[promscrape.SpecDraftTokens], w.Counters[promscrape.SpecAcceptedTokens]
	if tokens > 0 && (accepted > tokens || accepted < 0) {
		return fmt.Sprintf("speculative decoding not shown: the server counted %.0f accepted of %.0f draft tokens", accepted, tokens)
	}
	return ""
}
