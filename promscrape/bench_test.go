package promscrape

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseVLLM parses one vLLM exposition of three engine×model series
// (66 kB, 630 lines): the cost of one scrape's parsing.
func BenchmarkParseVLLM(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "vllm.prom"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(body), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScrapeLoopback scrapes the same exposition from a server on
// 127.0.0.1: parsing plus one HTTP round trip.
func BenchmarkScrapeLoopback(b *testing.B) {
	srv := serveFile(b, "vllm.prom")
	s := Scraper{URL: srv.URL, Client: srv.Client()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBetweenHour reads a one-hour window out of a series scraped every
// second (3600 vLLM snapshots, a reset in every other pair): the cost of a
// run summary.
func BenchmarkBetweenHour(b *testing.B) {
	first := parseFile(b, "vllm.prom", Options{})
	later := parseFile(b, "vllm_later.prom", Options{})
	s := &Series{}
	for i := range 3600 {
		sn := first
		if i%2 == 1 {
			sn = later
		}
		sn.At = at(float64(i))
		s.Samples = append(s.Samples, Sample{At: sn.At, Snapshot: &sn})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Between(at(0), at(3600)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuantile estimates p99 from a vLLM TTFT histogram (22 buckets).
func BenchmarkQuantile(b *testing.B) {
	s := parseFile(b, "vllm.prom", Options{})
	h, _ := s.Histogram(TTFT)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Quantile(0.99); err != nil {
			b.Fatal(err)
		}
	}
}
