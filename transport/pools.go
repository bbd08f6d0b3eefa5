package transport

import (
	"context"
	"sync"
)

// pools is a transport's pools of connections, one per server, and the
// spares each keeps (Options.Spare, or more as Ahead asks).
type pools[C comparable] struct {
	o Options

	mu     sync.Mutex // guards byKey, spare and closed
	byKey  map[string]*pool[C]
	spare  int
	closed bool
}

func newPools[C comparable](o Options) *pools[C] {
	return &pools[C]{o: o, byKey: map[string]*pool[C]{}, spare: o.spare()}
}

// get returns the pool of key, made by mk (given the spares to keep)
// when there is none; nil once closed for good.
func (s *pools[C]) get(key string, mk func(spare int) *pool[C]) *pool[C] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	p, ok := s.byKey[key]
	if !ok {
		p = mk(s.spare)
		s.byKey[key] = p
	}
	return p
}

// warm opens n connections in p and the spares beyond them, then has it
// keep the spares asked for. The start's requests, taking n, leave the
// spares idle: the dialler, which tops them up once they run short, has
// nothing to dial while the start-up burst goes out.
func (s *pools[C]) warm(ctx context.Context, p *pool[C], n int) error {
	s.mu.Lock()
	spare := s.spare
	s.mu.Unlock()
	err := p.warm(ctx, n+spare)
	p.setSpare(spare)
	return err
}

// ahead has every pool keep n spare connections, at least Options.Spare
// when it is set. The default of Options.spare is for loops that never
// say: an open loop that calls Ahead knows from its schedule how many
// requests come due soon, and more idle connections than that hold the
// server's resources for nothing (see load's warmWindow); with the
// default's 16 spares beside 40 requests a second, llama-server kept a
// probe waiting 0.4 s in one run of six.
func (s *pools[C]) ahead(n int) {
	s.mu.Lock()
	s.spare = max(n, s.o.Spare)
	spare := s.spare
	all := make([]*pool[C], 0, len(s.byKey))
	for _, p := range s.byKey {
		all = append(all, p)
	}
	s.mu.Unlock()
	for _, p := range all {
		p.setSpare(spare)
	}
}

// stats adds every pool's counts to st.
func (s *pools[C]) stats(st *Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.byKey {
		p.stats(st)
	}
}

// close closes every pool and forgets them; for good (get returns nil
// from then on) when final. It reports false when they were closed for
// good already.
func (s *pools[C]) close(final bool) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = final
	all := s.byKey
	s.byKey = map[string]*pool[C]{}
	s.mu.Unlock()
	for _, p := range all {
		p.close()
	}
	return true
}
