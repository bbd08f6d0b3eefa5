package bench

import (
	"fmt"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/workload"
)

// The warnings here read a run's numbers for what makes them mean less
// than they seem: requests that paid for a retry, prompts the server did
// not compute, prompts sent more than once.

// retryWarning says when a tenth or more of the requests had to be sent
// again because the server closed their kept-alive connection: their TTFT
// carries the retry, and --keepalive=false avoids it.
func retryWarning(res *metrics.Result, noKeepAlive bool) string {
	c := res.Counts
	if c.Retried == 0 || 10*c.Retried < c.Total || noKeepAlive {
		return ""
	}
	return fmt.Sprintf("%d of %d requests were sent again on a new connection: the server closes kept-alive connections "+
		"(llama.cpp's does after every streamed response), and TTFT includes each retry; --keepalive=false opens a connection per request instead",
		c.Retried, c.Total)
}

// cacheWarning says when most prompt tokens came from the server's prompt
// cache by its own account: prefill was mostly skipped, so TTFT reads as a
// cache hit's, not a new prompt's. A shared prefix (--random-prefix-len)
// accounts for its share.
func cacheWarning(res *metrics.Result, wl workload.Config) string {
	pc := res.PromptCache
	if pc == nil || pc.PromptTokens == 0 {
		return ""
	}
	expected := 0.0
	if wl.Dataset == workload.DatasetRandom && wl.Random.PrefixLen > 0 {
		expected = float64(wl.Random.PrefixLen) / float64(wl.Random.PrefixLen+wl.Random.InputLen)
	}
	if pc.HitRate <= 0.5 || pc.HitRate <= expected+0.25 {
		return ""
	}
	return fmt.Sprintf("%.0f%% of the prompt tokens were served from the server's prompt cache (%d of %d, by its responses): "+
		"prefill was mostly skipped, so TTFT is a cache hit's. A run repeated with the same --seed sends the same prompts; "+
		"change --seed, or clear the server's cache, to measure new prompts", 100*pc.HitRate, pc.CachedTokens, pc.PromptTokens)
}

// cycleWarning says when a dataset of fewer prompts than the run sends is
// cycled: the repeats may come from the server's prompt cache.
func cycleWarning(src workload.Source, sends int) string {
	n := src.Len()
	if n == 0 || sends <= n {
		return ""
	}
	return fmt.Sprintf("the dataset has %d prompts and the run sends %d requests: each prompt goes out about %.0f times, so the server's prompt cache may serve the repeats",
		n, sends, float64(sends)/float64(n))
}
