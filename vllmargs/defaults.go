package vllmargs

// ForcesIgnoreEOS reports whether `vllm bench serve` sets ignore_eos on
// its own for this dataset and backend: it does for its random datasets
// with the OpenAI-compatible backends, so that generation runs to the
// requested length.
func ForcesIgnoreEOS(dataset, backend string) bool {
	switch backend {
	case "vllm", "openai", "openai-chat", "openai-responses":
		return dataset == "random" || dataset == "random-mm"
	}
	return false
}
