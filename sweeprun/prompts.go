package sweeprun

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// maxPromptSets is how many seeds' prompts the virtual runner keeps. The
// points of a sweep are measured repeat after repeat, so with up to this
// many repeats every point reuses the prompts generated for the first.
const maxPromptSets = 4

// promptSet is the virtual requests of one seed's workload, without their
// arrival times: request i is item i of the source. Generating prompts is
// the costly part of a virtual-time point, so they are generated once per
// seed and shared by every point of the sweep.
type promptSet struct {
	seed uint64
	src  workload.Source
	reqs []sim.VirtualRequest
	// groups holds each request's prefix group when the source names any
	// (workload.Item.Group), nil otherwise.
	groups []string
}

// promptCache holds the most recently used prompt sets, newest first. It is
// used by one goroutine at a time (the sweep measures one point at a time).
type promptCache struct {
	sets []*promptSet
}

// get returns the first n virtual requests of the workload w (whose Seed
// selects the set), and their prefix groups (nil when the source has
// none). ids says whether the requests carry their prompts' token ids,
// which the simulator's prefix cache needs: to find prefixes that prompts
// share, and the blocks a preempted request had computed.
func (c *promptCache) get(ctx context.Context, w workload.Config, n int, ids bool) ([]sim.VirtualRequest, []string, workload.Source, error) {
	var set *promptSet
	for i, s := range c.sets {
		if s.seed == w.Seed {
			set = s
			copy(c.sets[1:i+1], c.sets[:i])
			c.sets[0] = set
			break
		}
	}
	if set == nil {
		src, err := workload.New(w)
		if err != nil {
			return nil, nil, nil, err
		}
		set = &promptSet{seed: w.Seed, src: src}
		c.sets = append([]*promptSet{set}, c.sets[:min(len(c.sets), maxPromptSets-1)]...)
	}
	if err := set.grow(ctx, n, ids, w.RequestOptions()); err != nil {
		return nil, nil, nil, err
	}
	var groups []string
	if set.groups != nil {
		groups = set.groups[:n]
	}
	return set.reqs[:n], groups, set.src, nil
}

// grow generates requests up to n, spread over every CPU: sources are safe
// for concurrent use and an item depends only on its sequence number.
func (s *promptSet) grow(ctx context.Context, n int, ids bool, req workload.Request) error {
	from := len(s.reqs)
	if n <= from {
		return nil
	}
	reqs := make([]sim.VirtualRequest, n)
	copy(reqs, s.reqs)
	groups := make([]string, n)
	copy(groups, s.groups)
	var grouped atomic.Bool
	const chunk = 256
	var next atomic.Int64
	next.Store(int64(from))
	workers := min(runtime.GOMAXPROCS(0), (n-from+chunk-1)/chunk)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					it := s.src.Item(int64(i))
					reqs[i] = virtualRequest(it, ids, req)
					if groups[i] = it.Group; it.Group != "" {
						grouped.Store(true)
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.reqs = reqs
	if grouped.Load() || s.groups != nil {
		s.groups = groups
	}
	return nil
}

// virtualRequest is item it as the simulator receives it over HTTP: the
// prompt (as token ids when ids is set, tokenized with the built-in
// tokenizer as the simulator's front end would), max_tokens, min_tokens and
// ignore_eos.
func virtualRequest(it workload.Item, ids bool, req workload.Request) sim.VirtualRequest {
	r := sim.VirtualRequest{
		PromptTokens: it.InputTokens,
		MaxTokens:    it.OutputTokens,
		MinTokens:    req.MinTokensFor(it),
		IgnoreEOS:    req.IgnoreEOS,
	}
	if ids {
		r.Prompt = it.PromptTokenIDs
		if r.Prompt == nil {
			r.Prompt = tokenizer.Encode(it.Prompt)
		}
	}
	return r
}
