package load

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/url"
	"strings"
	"sync/atomic"
)

// Balance names how a Router spreads requests over endpoints (--balance).
type Balance string

// Balancing policies.
const (
	// BalanceRoundRobin sends request after request to endpoint after
	// endpoint, as a Kubernetes Service does.
	BalanceRoundRobin Balance = "round-robin"
	// BalanceLeastOutstanding sends each request to the endpoint with the
	// fewest requests in flight, as a load-aware router does.
	BalanceLeastOutstanding Balance = "least-outstanding"
	// BalanceSession keeps every request of a session (or agent task) on
	// one endpoint, chosen by rendezvous hashing of its id, so that the
	// endpoint's prefix cache holds its history; a request outside any
	// session goes to the least outstanding endpoint. The choice depends on
	// the id and the endpoints alone, so the shards of a run agree on it.
	BalanceSession Balance = "session"
)

// ParseBalance reads a policy name.
func ParseBalance(s string) (Balance, error) {
	switch b := Balance(s); b {
	case BalanceRoundRobin, BalanceLeastOutstanding, BalanceSession:
		return b, nil
	case "least":
		return BalanceLeastOutstanding, nil
	}
	return "", fmt.Errorf("%q: want round-robin, least-outstanding or session", s)
}

// Router spreads requests over several endpoints. It is safe for
// concurrent use; each Pick must be followed by one Done.
type Router struct {
	urls        []string
	policy      Balance
	next        atomic.Uint64
	outstanding []atomic.Int64
}

// NewRouter returns a Router over urls (at least one) with policy b.
func NewRouter(urls []string, b Balance) (*Router, error) {
	if len(urls) == 0 {
		return nil, errors.New("no endpoint to send to")
	}
	if _, err := ParseBalance(string(b)); err != nil {
		return nil, err
	}
	return &Router{urls: append([]string(nil), urls...), policy: b, outstanding: make([]atomic.Int64, len(urls))}, nil
}

// URLs returns the endpoints, in the order given.
func (r *Router) URLs() []string { return append([]string(nil), r.urls...) }

// Policy returns the balancing policy.
func (r *Router) Policy() Balance { return r.policy }

// URL returns endpoint i.
func (r *Router) URL(i int) string { return r.urls[i] }

// Outstanding returns how many picked requests of endpoint i have not
// called Done.
func (r *Router) Outstanding(i int) int64 { return r.outstanding[i].Load() }

// Pick chooses the endpoint of a request whose session or task id is key
// ("" for none), counts it as outstanding there and returns its index. The
// caller must call Done with that index when the request has ended.
func (r *Router) Pick(key string) int {
	var i int
	switch {
	case r.policy == BalanceRoundRobin:
		i = int((r.next.Add(1) - 1) % uint64(len(r.urls)))
	case r.policy == BalanceSession && key != "":
		i = r.rendezvous(key)
	default:
		i = r.least()
	}
	r.outstanding[i].Add(1)
	return i
}

// Done ends a request picked for endpoint i.
func (r *Router) Done(i int) { r.outstanding[i].Add(-1) }

// least returns the endpoint with the fewest requests outstanding; ties go
// round the endpoints, so that an idle fleet is not all sent to the first.
func (r *Router) least() int {
	start := int(r.next.Add(1) % uint64(len(r.urls)))
	best, bestN := start, r.outstanding[start].Load()
	for k := 1; k < len(r.urls); k++ {
		i := (start + k) % len(r.urls)
		if n := r.outstanding[i].Load(); n < bestN {
			best, bestN = i, n
		}
	}
	return best
}

// rendezvous returns the endpoint whose hash with key is highest: each key
// lands on one endpoint, keys spread evenly, and removing an endpoint
// moves only the keys it held.
func (r *Router) rendezvous(key string) int {
	best, bestH := 0, uint64(0)
	for i, u := range r.urls {
		h := fnv.New64a()
		h.Write([]byte(u))
		h.Write([]byte{0})
		h.Write([]byte(key))
		if v := mix(h.Sum64()); i == 0 || v > bestH {
			best, bestH = i, v
		}
	}
	return best
}

// mix is splitmix64's finaliser: FNV's low bits vary little between keys
// that differ in their last byte.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// ReadEndpoints reads a file of endpoint base URLs (--base-url-file): one
// a line; blank lines and what follows a # are skipped. Each must be an
// absolute http or https URL, named by its line when it is not; a file
// with none is an error. name labels errors.
func ReadEndpoints(r io.Reader, name string) ([]string, error) {
	var urls []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimRight(strings.TrimSpace(line), "/")
		if line == "" {
			continue
		}
		if u, err := url.Parse(line); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s:%d: %q is not an absolute http:// or https:// URL", name, n, line)
		}
		urls = append(urls, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("%s holds no URL", name)
	}
	return urls, nil
}
