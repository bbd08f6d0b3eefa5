package sim

import (
	"fmt"

	"github.com/goodput-dev/goodput/tokenizer"
)

// checkLengths validates a request's lengths against max_model_len, with
// vLLM's rules and wording, and returns the effective max_tokens: the one
// asked for, or what is left of max_model_len after the prompt when
// maxTokens is 0 (not given).
func checkLengths(promptLen, maxTokens, minTokens, maxModelLen int) (int, error) {
	switch {
	case promptLen < 1:
		return 0, fmt.Errorf("the prompt is empty: it must have at least one token")
	case maxTokens < 0:
		return 0, fmt.Errorf("max_tokens must be at least 1, got %d", maxTokens)
	case promptLen >= maxModelLen:
		return 0, fmt.Errorf("this model's maximum context length is %d tokens, however your request has %d input tokens: reduce the length of the input",
			maxModelLen, promptLen)
	}
	// promptLen < maxModelLen from here on, so room cannot overflow. The sum
	// asked for may: max_tokens can be as large as an int holds, hence the
	// comparison with room and the sum in uint64 (two values below 2⁶³).
	room := maxModelLen - promptLen
	if maxTokens == 0 {
		maxTokens = room
	}
	switch {
	case maxTokens > room:
		return 0, fmt.Errorf("this model's maximum context length is %d tokens, however you requested %d tokens (%d in the input, %d in the completion): reduce the length of the input or of the completion",
			maxModelLen, uint64(promptLen)+uint64(maxTokens), promptLen, maxTokens)
	case minTokens < 0:
		return 0, fmt.Errorf("min_tokens must be greater than or equal to 0, got %d", minTokens)
	case minTokens > maxTokens:
		return 0, fmt.Errorf("min_tokens must be less than or equal to max_tokens=%d, got %d", maxTokens, minTokens)
	}
	return maxTokens, nil
}

// checkTokenIDs rejects token ids outside a vocabulary of vocab ids,
// naming the first. vocab is the served model's (config.vocab), as vLLM
// checks a prompt against its model's tokenizer: the synthetic tokenizer's
// 32,000 pieces only make text, and a prompt of ids from a real tokenizer
// (Llama 3's 128,256) must not be refused for going past them.
func checkTokenIDs(ids []int, vocab int) error {
	for i, id := range ids {
		if id < 0 || id >= vocab {
			return fmt.Errorf("token id %d at position %d is out of vocabulary (valid ids are 0 to %d)", id, i, vocab-1)
		}
	}
	return nil
}

// modelVocab is the vocabulary a model's prompts are checked against: its
// own, or the synthetic tokenizer's when the model does not give one.
func modelVocab(m Model) int {
	if m.VocabSize > 0 {
		return m.VocabSize
	}
	return tokenizer.VocabSize
}
