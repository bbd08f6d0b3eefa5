package workload

import (
	"fmt"
	"math/rand/v2"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Random streams of the prefix_repetition dataset.
const (
	rngRepPrefix = 0x72657070 // "repp"
	rngRepSuffix = 0x72657073 // "reps"
	rngRepOrder  = 0x7265706f // "repo"
)

// NewPrefixRepetition builds the prefix_repetition dataset as `vllm bench
// serve` does: NumPrefixes random prefixes of PrefixLen tokens, each
// followed by c.Limit/NumPrefixes random suffixes of SuffixLen tokens, in
// shuffled order unless c.NoShuffle. It exercises a server's prefix cache;
// each item names its prefix as its group, prefix-1 to prefix-NumPrefixes.
// The dataset holds NumPrefixes·⌊Limit/NumPrefixes⌋ items, which can be
// fewer than Limit; vLLM sends only those, and so should a run (see
// Source.Len). A Limit below NumPrefixes is an error, as in vLLM.
func NewPrefixRepetition(c Config) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := c.PrefixRepetition
	n := c.Limit
	if n == 0 {
		n = max(generatedItems, p.NumPrefixes)
	}
	if err := p.CheckRequests(n); err != nil {
		return nil, err
	}
	per := n / p.NumPrefixes
	items := make([]Item, 0, per*p.NumPrefixes)
	for k := range p.NumPrefixes {
		// With a Fit, the prefix is the words the server counts as its
		// length, and the suffix takes the prompt's overhead.
		prefixWords, suffixWords := p.PrefixLen, p.SuffixLen
		if c.Fit.Active() {
			prefixWords = c.Fit.Words(p.PrefixLen)
			suffixWords = max(0, c.Fit.Prompt(p.PrefixLen+p.SuffixLen)-prefixWords)
		}
		prefix := tokenizer.Words(prefixWords, rand.New(rand.NewPCG(c.Seed^rngRepPrefix, uint64(k))))
		for j := range per {
			rng := rand.New(rand.NewPCG(c.Seed^rngRepSuffix, uint64(k*per+j)))
			ids := tokenizer.AppendWords(append(make([]int, 0, prefixWords+suffixWords), prefix...), suffixWords, rng)
			items = append(items, Item{
				Prompt: tokenizer.Decode(ids), PromptTokenIDs: c.Fit.ids(ids),
				InputTokens: p.PrefixLen + p.SuffixLen, OutputTokens: c.Request.capOutput(p.OutputLen),
				Group: fmt.Sprintf("prefix-%d", k+1),
			})
		}
	}
	if !c.NoShuffle {
		rng := rand.New(rand.NewPCG(c.Seed, rngRepOrder))
		rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	}
	name := fmt.Sprintf("prefix_repetition: %d prefixes of %d tokens", p.NumPrefixes, p.PrefixLen)
	return &Dataset{name: name, items: items, stats: DatasetStats{Entries: len(items), Usable: len(items), Kept: len(items)}}, nil
}
