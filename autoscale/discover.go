package autoscale

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// DNSScheme marks a target whose host name stands for every address it
// resolves to: dns+http://vllm-headless:8000/metrics is one server per
// address of vllm-headless, looked up again at every interval, as a
// Kubernetes headless Service lists its ready pods.
const DNSScheme = "dns+"

// Resolver looks up a host's addresses; net.DefaultResolver is one.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// CheckTarget reports whether target is an http(s) or dns+http(s) URL.
func CheckTarget(target string) error {
	u, err := url.Parse(strings.TrimPrefix(target, DNSScheme))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: want an http:// or https:// URL, or dns+http:// for every address of a name", target)
	}
	return nil
}

// Expand returns the /metrics URLs that targets stand for now: each plain
// URL itself, each dns+ URL once per address its host resolves to. A name
// that does not resolve stands for no server (its pods may all be gone);
// its error is returned with the rest.
func Expand(ctx context.Context, r Resolver, targets []string) ([]string, []error) {
	var out []string
	var errs []error
	for _, t := range targets {
		if !strings.HasPrefix(t, DNSScheme) {
			out = append(out, t)
			continue
		}
		u, err := url.Parse(strings.TrimPrefix(t, DNSScheme))
		if err != nil {
			errs = append(errs, fmt.Errorf("target %q: %w", t, err))
			continue
		}
		addrs, err := r.LookupHost(ctx, u.Hostname())
		if err != nil {
			errs = append(errs, fmt.Errorf("target %q: %w", t, err))
			continue
		}
		slices.Sort(addrs)
		for _, a := range addrs {
			v := *u
			if p := u.Port(); p != "" {
				v.Host = net.JoinHostPort(a, p)
			} else {
				v.Host = a
				if strings.Contains(a, ":") {
					v.Host = "[" + a + "]"
				}
			}
			out = append(out, v.String())
		}
	}
	return slices.Compact(out), errs
}
