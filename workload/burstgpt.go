package workload

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/trace"
)

// rngBurstGPT separates the BurstGPT prompts' words from the other users
// of --seed.
const rngBurstGPT = 0x6275727374 // "burst"

// maxBurstGPTLine bounds a line of a BurstGPT CSV, whose rows are tens of
// bytes.
const maxBurstGPTLine = 64 << 10

// ReadBurstGPT reads a BurstGPT trace (BurstGPT_without_fails_2.csv of
// github.com/HPMLL/BurstGPT: Timestamp, Model, Request tokens, Response
// tokens, Total tokens, Log Type) as `vllm bench serve --dataset-name
// burstgpt` does: the GPT-4 rows with a positive response length, each
// becoming a prompt of its request's length in tokens and asking for its
// response's length. The prompts are generated words, as token ids for
// servers that take them; the trace's timestamps are not replayed (vLLM
// does not either). Rows are sampled with the seed down to c.Limit.
func ReadBurstGPT(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "burstgpt " + name
	cr := csv.NewReader(&cappedLines{r: r, max: maxBurstGPTLine})
	cr.ReuseRecord = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, want a CSV with a header row", label)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"Model", "Request tokens", "Response tokens"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %q column (the header has %s)", label, need, strings.Join(head, ", "))
		}
	}
	coll := newCollector(c)
	line := 1
	for {
		rec, err := cr.Read()
		line++
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		coll.entry()
		if strings.TrimSpace(rec[col["Model"]]) != "GPT-4" {
			coll.skip("of another model than GPT-4")
			continue
		}
		in, err1 := burstTokens(rec[col["Request tokens"]], "Request tokens")
		out, err2 := burstTokens(rec[col["Response tokens"]], "Response tokens")
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		switch {
		case out <= 0:
			coll.skip("without a response")
			continue
		case in < 1 || in > MaxPromptTokens:
			coll.skip("with a request length out of range")
			continue
		}
		// The prompt is made when the item is kept, from its position in
		// the file, so that sampling never generates what it drops.
		coll.add(Item{InputTokens: in, OutputTokens: c.Request.capOutput(min(out, MaxOutputTokens))})
	}
	d, err := coll.dataset(label)
	if err != nil {
		return nil, err
	}
	for i := range d.items {
		rng := rand.New(rand.NewPCG(c.Seed^rngBurstGPT, uint64(i)))
		ids := tokenizer.Words(c.Fit.Prompt(d.items[i].InputTokens), rng)
		d.items[i].Prompt, d.items[i].PromptTokenIDs = tokenizer.Decode(ids), c.Fit.ids(ids)
	}
	return d, nil
}

// burstTokens reads a token count of column col as the trace reader
// reads one (pandas may write "30.0"), as vLLM's reader takes it.
func burstTokens(cell, col string) (int, error) {
	n, ok := trace.ParseCount(strings.TrimSpace(cell))
	if !ok {
		return 0, fmt.Errorf("%q %q is not a whole number of tokens", col, cell)
	}
	return int(n), nil
}
