package pretrained

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
)

// benchTexts are about 1 MB each: English-like prose from the built-in
// vocabulary's generator (thousands of distinct words, some coined), and a
// mix of scripts, digits, emoji and markup from the fragments.
func benchTexts() []struct{ name, text string } {
	prose := tokenizer.Decode(tokenizer.Words(230000, rand.New(rand.NewPCG(1, 1))))
	r := rand.New(rand.NewPCG(2, 2))
	var mixed bytes.Buffer
	for mixed.Len() < 1<<20 {
		mixed.WriteString(randomText(r, 50))
		mixed.WriteString(" ")
	}
	return []struct{ name, text string }{
		{"prose", prose[:min(len(prose), 1<<20)]},
		{"mixed", mixed.String()[:1<<20]},
	}
}

// benchModels are the tokenizers measured; the GGUF ones need llama.cpp's
// vocabularies.
func benchModels(b *testing.B) []struct {
	name string
	tok  *Tokenizer
} {
	models := []struct {
		name string
		tok  *Tokenizer
	}{
		{"gpt2-json", testdataTokenizer(b, "gpt2")},
		{"qwen2.5-json", testdataTokenizer(b, "qwen2_5")},
		{"mistral-json", testdataTokenizer(b, "mistral")},
	}
	if haveVocab(b) {
		for _, n := range []string{"gpt-2", "llama-spm", "deepseek-llm"} {
			models = append(models, struct {
				name string
				tok  *Tokenizer
			}{n + "-gguf", ggufTokenizer(b, n)})
		}
	}
	return models
}

func BenchmarkEncode(b *testing.B) {
	texts := benchTexts()
	for _, m := range benchModels(b) {
		for _, tx := range texts {
			b.Run(m.name+"/"+tx.name, func(b *testing.B) {
				b.SetBytes(int64(len(tx.text)))
				b.ReportAllocs()
				n := 0
				cpu := processCPU()
				for b.Loop() {
					n = m.tok.Count(tx.text)
				}
				reportCPU(b, cpu, len(tx.text))
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkEncodeParallel encodes on every processor at once, as a
// benchmark run's workers do.
// reportCPU adds the throughput per second of this process's CPU time
// since start, which a busy shared machine disturbs far less than wall time.
func reportCPU(b *testing.B, start time.Duration, size int) {
	if used := processCPU() - start; used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
	}
}

func BenchmarkEncodeParallel(b *testing.B) {
	text := benchTexts()[0].text[:64<<10]
	tok := testdataTokenizer(b, "qwen2_5")
	b.SetBytes(int64(len(text)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tok.Count(text)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	text := benchTexts()[0].text
	for _, m := range benchModels(b)[:2] {
		ids := m.tok.Encode(text)
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				m.tok.Decode(ids)
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	paths := map[string]string{"qwen2.5-json": unpackTestdata(b, "qwen2_5")}
	if haveVocab(b) {
		paths["llama-spm-gguf"] = filepath.Join(sharedVocab, "ggml-vocab-llama-spm.gguf")
		paths["deepseek-gguf"] = filepath.Join(sharedVocab, "ggml-vocab-deepseek-llm.gguf")
	}
	for name, p := range paths {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Open(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
