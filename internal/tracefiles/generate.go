package tracefiles

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// WriteMooncake writes a Mooncake-format trace of n rows to dir, shaped like the
// conversation excerpt at a tenth of its lengths: about 3 req/s, prompts of
// 1 to 12,000 tokens whose hash ids continue an earlier prompt's a third of
// the time, outputs of 1 to 400 tokens. It returns the path.
func WriteMooncake(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("mooncake_%d.jsonl", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	var next int64 // the next fresh id
	prev := [][]int64{}
	ts := 0.0
	for range n {
		ts += rng.ExpFloat64() * 333
		in := 1 + rng.IntN(12000)
		blocks := (in + 511) / 512
		ids := make([]int64, 0, blocks)
		if len(prev) > 0 && rng.IntN(3) == 0 {
			p := prev[rng.IntN(len(prev))]
			ids = append(ids, p[:min(len(p), blocks)]...)
		}
		for len(ids) < blocks {
			ids = append(ids, next)
			next++
		}
		if len(prev) < 64 {
			prev = append(prev, ids)
		} else {
			prev[rng.IntN(64)] = ids
		}
		fmt.Fprintf(w, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [`, int64(ts), in, 1+rng.IntN(400))
		for i, id := range ids {
			if i > 0 {
				w.WriteString(", ")
			}
			fmt.Fprint(w, id)
		}
		w.WriteString("]}\n")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// PeakHeap samples the live heap every millisecond while f runs and
// returns the most it held above what it held before.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}
