package servegen

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// MaxArrivals bounds the arrivals one generation makes (the arrival
// package's limit on a schedule).
const MaxArrivals = 10_000_000

// rngArrivals separates each client's arrivals from the other users of the
// seed.
const rngArrivals = 0x7365727665 // "serve"

// Arrival is one generated request: when it arrives, from the start of the
// period, and which client (index into the clients) sends it.
type Arrival struct {
	At     time.Duration
	Client int
}

// Arrivals generates the first n arrivals (every one when n is 0) of the
// clients from start to end (0: the end of their windows), drawn with
// seed, in time order. Each client's arrivals depend on the seed and its
// index alone, so adding a client leaves the others' unchanged.
func Arrivals(clients []*Client, start, end time.Duration, n int, seed uint64) ([]Arrival, error) {
	if n < 0 || start < 0 || end < 0 {
		return nil, fmt.Errorf("arrivals: n %d, start %v and end %v must be ≥ 0", n, start, end)
	}
	var h gens
	for i, c := range clients {
		g := &gen{c: c, client: i, end: c.End(), rng: rand.New(rand.NewPCG(seed^rngArrivals, uint64(i)))}
		if end > 0 {
			g.end = min(g.end, end)
		}
		g.seek(start)
		if g.advance() {
			h = append(h, g)
		}
	}
	heap.Init(&h)
	var out []Arrival
	for len(h) > 0 && (n == 0 || len(out) < n) {
		if len(out) == MaxArrivals {
			return nil, fmt.Errorf("more than %d arrivals: narrow the window with --trace-duration or --num-prompts", MaxArrivals)
		}
		g := h[0]
		out = append(out, Arrival{At: g.next, Client: g.client})
		if g.advance() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return out, nil
}

// gen draws one client's arrivals in order.
type gen struct {
	c      *Client
	client int
	rng    *rand.Rand
	w      int           // the rate window t lies in
	t      float64       // seconds: the last arrival, or where the process restarts
	end    time.Duration // no arrival at or after this
	next   time.Duration // the arrival advance found
}

// seek puts the generator at start, in the window that holds it.
func (g *gen) seek(start time.Duration) {
	g.t = start.Seconds()
	for g.w+1 < len(g.c.Windows) && g.c.Windows[g.w+1].Start <= start {
		g.w++
	}
}

// advance draws the next arrival into g.next, and reports false when there
// is none before the end. A gap that crosses the end of its window is not
// taken: the process starts afresh at the next window, with that window's
// rate and distribution.
func (g *gen) advance() bool {
	for g.w < len(g.c.Windows) {
		win := g.c.Windows[g.w]
		wend := min(g.c.windowEnd(g.w), g.end).Seconds()
		g.t = max(g.t, win.Start.Seconds())
		if g.t >= g.end.Seconds() {
			return false
		}
		if win.Rate > 0 {
			t := g.t + win.Process.Gap(g.rng)/win.Rate
			if t < wend {
				g.t = t
				g.next = time.Duration(math.Round(t * 1e9))
				return true
			}
		}
		g.w++
		g.t = wend
	}
	return false
}

// gens is a min-heap of generators by their next arrival, ties by client.
type gens []*gen

func (h gens) Len() int { return len(h) }
func (h gens) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].client < h[j].client
}
func (h gens) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *gens) Push(x any)   { *h = append(*h, x.(*gen)) }
func (h *gens) Pop() any {
	old := *h
	g := old[len(old)-1]
	*h = old[:len(old)-1]
	return g
}
