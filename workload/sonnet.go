package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/goodput-dev/goodput/tokenizer"
)

// SonnetInstruction is the instruction every sonnet prompt starts with,
// which SonnetCount.Formatted counts alone for the template's share.
const SonnetInstruction = sonnetBase

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

// SonnetCount counts sonnet text as vLLM's sonnet sampler does, with the
// model's tokenizer: Line a poem line alone, Formatted a whole prompt
// rendered with the model's chat template as the one user message (the
// runner backs both with the server's /tokenize and its template). Either
// may be nil: Line then counts on the built-in tokenizer, and a nil
// Formatted sizes the prompts by their bare text. Both are called from
// several goroutines at once and must return a positive count.
type SonnetCount struct {
	Line      Counter
	Formatted Counter
}

// sonnetWorkers is how many prompts are drawn at once when each draw is
// counted by c.SonnetCount, a server's round trips.
const sonnetWorkers = 4

// ReadSonnet reads the sonnet dataset, a text file of poem lines such as
// vLLM's benchmarks/sonnet.txt, and generates c.Limit prompts (1000 when 0,
// at most 10,000, which a longer run sends again in turn)
// as `vllm bench serve --dataset-name sonnet` does: each asks the model to
// pick lines from a list that starts with the file's first lines, about
// --sonnet-prefix-len tokens of them, shared by every prompt, and goes on
// with lines drawn at random up to about --sonnet-input-len tokens; a
// draw longer than that is drawn again.
//
// vLLM sizes the prompts by their length formatted with the model's chat
// template, whether it sends them formatted (every backend but
// openai-chat, see Config.ChatTemplate) or not: the instruction's
// formatted length is taken off --sonnet-input-len and
// --sonnet-prefix-len before they are divided by a line's mean length,
// a draw is kept when its formatted prompt is at most
// --sonnet-input-len, and that length is the prompt's. With
// c.SonnetCount.Formatted so does ReadSonnet, and an item's InputTokens
// is its formatted count; without, lengths are the bare text's on the
// built-in tokenizer.
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
	sc := c.SonnetCount
	countLine := sc.Line
	if countLine == nil {
		countLine = builtInCount
	}
	total, counted := 0, map[string]int{}
	for _, l := range lines {
		n, ok := counted[l]
		if !ok {
			var err error
			if n, err = countLine(l); err != nil {
				return nil, fmt.Errorf("%s: counting a poem line: %w", label, err)
			}
			counted[l] = n
		}
		total += n
	}
	if len(lines) == 0 || total == 0 {
		return nil, fmt.Errorf("%s: no poem lines in the file", label)
	}
	count := sc.Formatted
	if count == nil {
		count = builtInCount
	}
	s := c.Sonnet
	avg := float64(total) / float64(len(lines))
	offset, err := count(sonnetBase)
	if err != nil {
		return nil, fmt.Errorf("%s: counting the instruction: %w", label, err)
	}
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
	items := make([]Item, n)
	draw := func(i int) error {
		rng := rand.New(rand.NewPCG(c.Seed^rngSonnet, uint64(i)))
		it, err := sonnetItem(rng, lines, prefix, extra, s.InputLen, count)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		if it.Prompt == "" {
			return fmt.Errorf("%s: no draw of %d lines fits in --sonnet-input-len %d tokens after %d tries: raise it or lower --sonnet-prefix-len",
				label, numInput, s.InputLen, sonnetAttempts)
		}
		it.OutputTokens = c.Request.capOutput(s.OutputLen)
		items[i] = it
		return nil
	}
	workers := 1
	if sc.Formatted != nil {
		workers = sonnetWorkers
	}
	if err := eachIndex(n, workers, draw); err != nil {
		return nil, err
	}
	return &Dataset{name: label, items: items, stats: DatasetStats{Entries: len(lines), Usable: len(lines), Kept: len(items)}}, nil
}

// sonnetItem draws one prompt of the prefix and extra random lines whose
// count is at most limit; the zero Item when none of sonnetAttempts
// draws fits.
func sonnetItem(rng *rand.Rand, lines []string, prefix string, extra, limit int, count Counter) (Item, error) {
	var b strings.Builder
	for range sonnetAttempts {
		b.Reset()
		b.WriteString(sonnetBase)
		b.WriteString(prefix)
		for range extra {
			b.WriteString(lines[rng.IntN(len(lines))])
		}
		p := b.String()
		n, err := count(p)
		if err != nil {
			return Item{}, err
		}
		if n <= limit {
			return Item{Prompt: p, InputTokens: n}, nil
		}
	}
	return Item{}, nil
}

func builtInCount(s string) (int, error) { return tokenizer.Count(s), nil }

// eachIndex calls f(i) for every i in [0, n), workers at a time, and
// returns the first error; after one, the indices not yet begun are left.
func eachIndex(n, workers int, f func(int) error) error {
	if workers <= 1 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	var mu sync.Mutex // guards next and first
	next, first := 0, error(nil)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil || i >= n
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
