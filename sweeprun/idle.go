package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// errNoGauges means the server exposes no running or waiting gauge, so its
// idleness cannot be observed.
var errNoGauges = errors.New("no running or waiting gauge")

// metricsURL returns the /metrics URL of the server at baseURL, which may
// end in /v1 as OpenAI clients write it.
func metricsURL(baseURL string) string {
	base := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	return base + "/metrics"
}

// waitIdle polls the server's /metrics at url every poll until it reports
// no request running or waiting, and returns how many it saw busy at first
// (0 when it was idle already). It returns errNoGauges (wrapped) when the
// first scrape fails or lacks both gauges: such a server cannot be waited
// for. It fails when the server is still busy after timeout.
func waitIdle(ctx context.Context, client *http.Client, url string, timeout, poll time.Duration) (float64, error) {
	deadline := time.Now().Add(timeout)
	first := -1.0
	var running, waiting float64
	for {
		snap, err := promscrape.Scrape(ctx, client, url)
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err != nil {
			if first < 0 {
				return 0, fmt.Errorf("%w: %w", errNoGauges, err)
			}
			// The server answered before: a failed scrape mid-wait is
			// transient, and the deadline still bounds the wait.
		} else {
			r, okR := snap.Gauge(promscrape.Running)
			w, okW := snap.Gauge(promscrape.Waiting)
			if !okR && !okW {
				return 0, fmt.Errorf("%w at %s", errNoGauges, url)
			}
			running, waiting = r, w
			if first < 0 {
				first = running + waiting
			}
			if running+waiting == 0 {
				return first, nil
			}
		}
		if !time.Now().Before(deadline) {
			return first, fmt.Errorf("server still busy after %v (%g running, %g waiting per %s): a straggler of the previous point would load the next; wait longer with --idle-timeout, or give --idle-timeout 0 for a server shared with other traffic",
				timeout, running, waiting, url)
		}
		select {
		case <-ctx.Done():
			return first, ctx.Err()
		case <-time.After(poll):
		}
	}
}
