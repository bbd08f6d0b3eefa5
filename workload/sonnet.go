package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
)

// sonnetBase is the instruction every sonnet prompt starts with.
const sonnetBase = "Pick as many lines as you can from these poem lines:\n"

// rngSonnet separates the sonnet dataset's draws from the other users of
// --seed.
const rngSonnet = 0x736f6e6e6574 // "sonnet"

// generatedItems is how many prompts a generated dataset makes when the
// run does not say how many it sends (a run bounded by --duration only);
// the run cycles through them. maxGeneratedItems is the most it makes for
// a run that sends more, which sends them again in turn: a million
// prompts of a few thousand bytes each would be gigabytes before the
// run, and as many slow draws.
const (
	generatedItems    = 1000
	maxGeneratedItems = 10_000
)

// sonnetAttempts bounds the draws for one prompt that must fit in
// --sonnet-input-len.
const sonnetAttempts = 100

// maxSonnetBytes bounds a sonnet file, which is read whole (vLLM's is
// 18 KB): a wrong path is refused, not held in memory.
const maxSonnetBytes = 16 << 20

// ReadSonnet reads the sonnet dataset, a text file of poem lines such as
// vLLM's benchmarks/sonnet.txt, and generates c.Limit prompts (1000 when 0,
// at most 10,000, which a longer run sends again in turn)
// as `vllm bench serve --dataset-name sonnet` does: each asks the model to
// pick lines from a list that starts with the file's first lines, about
// --sonnet-prefix-len tokens of them, shared by every prompt, and goes on
// with lines drawn at random up to about --sonnet-input-len tokens; a
// draw longer than that is drawn again. Lengths count on the built-in
// tokenizer. vLLM also wraps the prompt in the model's chat template for
// every backend but openai-chat (see Config.ChatTemplate), which the
// runner does with the server's template. vLLM sizes the prompts by their
// templated length; goodput sizes them by the text's.
func ReadSonnet(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "sonnet " + name
	var lines []string
	br := bufio.NewReader(io.LimitReader(r, maxSonnetBytes+1))
	read := 0
	for {
		line, err := br.ReadString('\n')
		if strings.HasSuffix(line, "\r\n") {
			// Python reads text with universal newlines: vLLM's lines of
			// a file saved on Windows end in "\n" alone.
			line = line[:len(line)-2] + "\n"
		}
		if read += len(line); read > maxSonnetBytes {
			return nil, fmt.Errorf("%s: larger than %d MiB: not a file of poem lines", label, maxSonnetBytes>>20)
		}
		if line != "" {
			lines = append(lines, line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
	}
	total := 0
	for _, l := range lines {
		total += tokenizer.Count(l)
	}
	if len(lines) == 0 || total == 0 {
		return nil, fmt.Errorf("%s: no poem lines in the file", label)
	}
	s := c.Sonnet
	avg := float64(total) / float64(len(lines))
	offset := tokenizer.Count(sonnetBase)
	if s.InputLen <= offset {
		return nil, fmt.Errorf("--sonnet-input-len %d must be above the instruction's %d tokens", s.InputLen, offset)
	}
	numInput := int(math.RoundToEven(float64(s.InputLen-offset) / avg))
	numPrefix := min(max(int(math.RoundToEven(float64(s.PrefixLen-offset)/avg)), 0), len(lines))
	prefix := strings.Join(lines[:numPrefix], "")
	extra := max(numInput-numPrefix, 0)

	n := c.Limit
	if n == 0 {
		n = generatedItems
	}
	n = min(n, maxGeneratedItems)
	items := make([]Item, 0, n)
	for i := range n {
		rng := rand.New(rand.NewPCG(c.Seed^rngSonnet, uint64(i)))
		it, ok := sonnetItem(rng, lines, prefix, extra, s.InputLen)
		if !ok {
			return nil, fmt.Errorf("%s: no draw of %d lines fits in --sonnet-input-len %d tokens after %d tries: raise it or lower --sonnet-prefix-len",
				label, numInput, s.InputLen, sonnetAttempts)
		}
		it.OutputTokens = c.Request.capOutput(s.OutputLen)
		items = append(items, it)
	}
	return &Dataset{name: label, items: items, stats: DatasetStats{Entries: len(lines), Usable: len(lines), Kept: len(items)}}, nil
}

// sonnetItem draws one prompt of the prefix and extra random lines that
// fits in limit tokens.
func sonnetItem(rng *rand.Rand, lines []string, prefix string, extra, limit int) (Item, bool) {
	var b strings.Builder
	for range sonnetAttempts {
		b.Reset()
		b.WriteString(sonnetBase)
		b.WriteString(prefix)
		for range extra {
			b.WriteString(lines[rng.IntN(len(lines))])
		}
		p := b.String()
		if n := tokenizer.Count(p); n <= limit {
			return Item{Prompt: p, InputTokens: n}, true
		}
	}
	return Item{}, false
}
