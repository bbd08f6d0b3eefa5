package bench

import (
	"fmt"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/workload"
)

// The warnings here read a run's numbers for what makes them mean less
// than they seem: requests that paid for a retry, prompts the server did
// not compute, prompts sent more than once, answers shorter than asked,
// token counts that were not counts.

// retryWarning says when a tenth or more of the requests had to be sent
// again because the server closed their kept-alive connection: their TTFT
// carries the retry, and --keepalive=false avoids it.
func retryWarning(res *metrics.Result, noKeepAlive bool) string {
	c := res.Counts
	if c.Retried == 0 || 10*c.Retried < c.Total || noKeepAlive {
		return ""
	}
	if c.Failed > 0 {
		// A server that went away closes every connection too: the
		// failures, not keep-alive, may be the cause.
		return fmt.Sprintf("%d of %d requests were sent again on a new connection, and %d failed: the server closed connections during the run, "+
			"or went away (the failures say which); TTFT includes each retry", c.Retried, c.Total, c.Failed)
	}
	return fmt.Sprintf("%d of %d requests were sent again on a new connection: the server closes kept-alive connections "+
		"(llama.cpp's does after every streamed response), and TTFT includes each retry; --keepalive=false opens a connection per request instead",
		c.Retried, c.Total)
}

// cacheWarning says when most prompt tokens came from the server's prompt
// cache by its own account: prefill was mostly skipped, so TTFT reads as a
// cache hit's, not a new prompt's. The account is the responses' (cached
// tokens in usage, llama.cpp's timings), else serverHits, the prefix-cache
// hit rate of the server's /metrics over the run (vLLM's, which counts
// tokens; nil when not scraped): vLLM reports no cached tokens in its
// responses unless started with --enable-prompt-tokens-details. A shared
// prefix (--random-prefix-len) accounts for its share.
func cacheWarning(res *metrics.Result, serverHits *float64, wl workload.Config) string {
	expected := 0.0
	if wl.Dataset == workload.DatasetRandom && wl.Random.PrefixLen > 0 {
		expected = float64(wl.Random.PrefixLen) / float64(wl.Random.PrefixLen+wl.Random.InputLen)
	}
	high := func(rate float64) bool { return rate > 0.5 && rate > expected+0.25 }
	const advice = "A run repeated with the same --seed sends the same prompts; " +
		"change --seed, or clear the server's cache, to measure new prompts"
	pc := res.PromptCache
	if pc == nil || pc.PromptTokens == 0 {
		if serverHits == nil || !high(*serverHits) {
			return ""
		}
		return fmt.Sprintf("the server's prefix cache served %.0f%% of the prompt tokens it looked up during the run (its /metrics): "+
			"prefill was mostly skipped, so TTFT is a cache hit's. "+advice, 100**serverHits)
	}
	if !high(pc.HitRate) {
		return ""
	}
	return fmt.Sprintf("%.0f%% of the prompt tokens were served from the server's prompt cache (%d of %d, by its responses): "+
		"prefill was mostly skipped, so TTFT is a cache hit's. "+advice, 100*pc.HitRate, pc.CachedTokens, pc.PromptTokens)
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

// earlyStops says how many of the answers that had a length to reach
// ended short of it by the server's choice (finish reason "stop"), when
// they are a tenth or more: "" otherwise.
func earlyStops(t load.TokenCheck) string {
	if t.EndedEarly == 0 || 10*t.EndedEarly < t.Limited {
		return ""
	}
	return fmt.Sprintf("%d of %d answers ended before their max_tokens (finish reason \"stop\"; %d of the %d output tokens asked for came)",
		t.EndedEarly, t.Limited, t.LimitedOutput, t.LimitedAsked)
}

// cutShortWarning says when the server ended answers short of their
// max_tokens with finish reason "length": a limit of its own, not the
// workload's, set their lengths, so the output lengths and throughput are
// not those asked for.
func cutShortWarning(t load.TokenCheck) string {
	if t.CutShort == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d answers ended short of their max_tokens with finish reason \"length\" (%d of the %d output tokens asked for came): "+
		"a limit of the server's cut them, most often its context, which the prompt and max_tokens together overran "+
		"(llama.cpp shares its -c among its --parallel slots); ask for shorter prompts or answers, or give the server a longer context", t.CutShort, t.Limited, t.CutOutput, t.CutAsked)
}

// earlyStopWarning says when answers ended early although ignore_eos was
// sent: the server did not hold to it, and the lengths are not the
// workload's.
func earlyStopWarning(t load.TokenCheck, ignoreEOS bool) string {
	head := earlyStops(t)
	if head == "" || !ignoreEOS {
		return ""
	}
	return head + ": ignore_eos was sent, and the server did not hold to it (or a stop string in --extra-body ended them); " +
		"--min-tokens holds the end off on servers that take min_tokens"
}

// earlyStopNote says, without ignore_eos, where the workload's output
// lengths are made up (random prompts, shared prefixes) and answers ended
// before them: output throughput then counts fewer tokens than the
// workload names. It is a finding, not a warning: the server deciding where
// an answer ends is goodput's default. Answers to real prompts (sharegpt
// and the like) end where the model ends them, which is what such a run
// measures, and get none.
func earlyStopNote(t load.TokenCheck, ignoreEOS bool, dataset string) string {
	head := earlyStops(t)
	if head == "" || ignoreEOS || (dataset != workload.DatasetRandom && dataset != workload.DatasetPrefixRepetition) {
		return ""
	}
	return "Output lengths: " + head + ": the server ends an answer where its model stops unless --ignore-eos is given, " +
		"which runs every answer to its length (as vllm bench serve does for random prompts)"
}

// badCountWarning says when answers reported a token count that is not one
// ("12", -1, 1.5, a number past int32): the reader left it out as if the
// server had sent none, so those answers succeeded on goodput's own count
// (output tokens from the chunks, prompt tokens from the prompt), not the
// server's.
func badCountWarning(t load.TokenCheck) string {
	if t.BadCounts == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d answers reported a token count that is not one (%s): it was left out as if not sent, "+
		"and goodput counted in its place (output tokens from the chunks, prompt tokens from the prompt)", t.BadCounts, t.Answers, t.BadCount)
}
