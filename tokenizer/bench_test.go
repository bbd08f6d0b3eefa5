package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// megabyteOfProse is about 1 MB of generated prose, the size the package
// doc's speed claim refers to.
func megabyteOfProse() string {
	text := Decode(Words(230000, rand.New(rand.NewPCG(1, 1))))
	for len(text) < 1<<20 {
		text += text
	}
	return text[:1<<20]
}

// englishMegabyte is 1 MB of real English, with capitals and words outside
// the vocabulary, which exercises the fallback paths.
func englishMegabyte() string {
	const para = "Goodput is the throughput that met its service level objective. " +
		"When the scheduler admits too many requests, time to first token grows, " +
		"and users wait; operators then add replicas or lower the batch size. " +
		"Percentiles, not averages, reveal whether the promise held.\n"
	return strings.Repeat(para, (1<<20)/len(para)+1)[:1<<20]
}

func BenchmarkCount(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{
		{"prose", megabyteOfProse()},
		{"english", englishMegabyte()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				Count(bc.text)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	text := englishMegabyte()
	buf := make([]int, 0, len(text))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendEncode(buf[:0], text)
	}
}

func BenchmarkAppendText(b *testing.B) {
	ids := Words(1024, rand.New(rand.NewPCG(2, 2)))
	buf := make([]byte, 0, 16<<10)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, id := range ids {
			buf = AppendText(buf, id)
		}
	}
}

func BenchmarkWords(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	buf := make([]int, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendWords(buf[:0], 1024, rng)
	}
}

func BenchmarkBuildVocabulary(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buildVocabulary()
	}
}
