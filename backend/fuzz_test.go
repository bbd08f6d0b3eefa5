package backend

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/record"
)

// addFixtures seeds a fuzz target with the testdata files matching glob.
func addFixtures(f *testing.F, glob string) {
	files, err := filepath.Glob(filepath.Join("testdata", glob))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures for %s: %v", glob, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkStream reads b with a under several read patterns and checks that
// they agree and that the record keeps its invariants.
func checkStream(t *testing.T, a *Adapter, b []byte) {
	readers := []func() io.Reader{
		func() io.Reader { return bytes.NewReader(b) },
		func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		func() io.Reader { return &pieceReader{b: b, size: 3} },
		func() io.Reader {
			return io.MultiReader(bytes.NewReader(b[:len(b)/2]), bytes.NewReader(b[len(b)/2:]))
		},
	}
	var first *record.Record
	for i, r := range readers {
		rec, st := readAll(a, r())
		checkRecord(t, a, b, rec, st)
		if i == 0 {
			first = rec
			continue
		}
		if !sameButTimes(rec, first) {
			t.Fatalf("%s, read pattern %d: %+v\nwhole body gave %+v", a.Name(), i, rec, first)
		}
	}
}

func checkRecord(t *testing.T, a *Adapter, b []byte, rec *record.Record, st Stats) {
	t.Helper()
	sum, thought := 0, 0
	var last int64
	for i, c := range rec.Chunks {
		if c.Tokens < 1 || c.At < last || c.At < 1 {
			t.Fatalf("%s: chunk %d is %+v after time %d", a.Name(), i, c, last)
		}
		last = c.At
		sum += int(c.Tokens)
		if c.Reasoning {
			thought += int(c.Tokens)
		}
	}
	// Reasoning the server counted but never streamed is output the
	// chunks do not hold.
	hidden := 0
	if thought == 0 {
		hidden = rec.ReasoningTokens
	}
	if rec.OutputTokens != sum && rec.OutputTokens != sum+hidden || st.Chunks != len(rec.Chunks) {
		t.Fatalf("%s: output %d, Σ chunks %d, stats %+v", a.Name(), rec.OutputTokens, sum, st)
	}
	if rec.End < last || rec.End < 1 {
		t.Fatalf("%s: end %d before the last chunk %d", a.Name(), rec.End, last)
	}
	if (rec.Error == record.ErrNone) != (rec.Msg == "") || len(rec.Msg) > maxMsg || !utf8.ValidString(rec.Msg) {
		t.Fatalf("%s: error %q with message %q", a.Name(), rec.Error, rec.Msg)
	}
	if st.Bytes > int64(len(b)) || st.Events < len(rec.Chunks) {
		t.Fatalf("%s: stats %+v for %d bytes", a.Name(), st, len(b))
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("%s: %v", a.Name(), err)
	}
	// A dropped count is named short and fit to print: a field, and 32
	// bytes of JSON that may each have become a U+FFFD.
	if len(st.BadCount) > 160 || !utf8.ValidString(st.BadCount) {
		t.Fatalf("%s: BadCount %q", a.Name(), st.BadCount)
	}
	if rec.TokenSource != record.SourceUsage && rec.TokenSource != record.SourceChunks {
		t.Fatalf("%s: token source %q", a.Name(), rec.TokenSource)
	}
}

// FuzzSSE feeds arbitrary bytes to every SSE adapter: no panic, no hang,
// the same record however the bytes are split, and sound invariants.
func FuzzSSE(f *testing.F) {
	addFixtures(f, "*.sse")
	for _, s := range []string{
		"", "\n\n", "data: [DONE]", "data:\r\rdata: x\r\n", ": only a comment\n\n",
		"event: error\ndata: boom\n\n", "error: {\"code\":503,\"type\":\"unavailable_error\"}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"text\":\"a\"}]}\ndata: {}\n\n",
		"data: \xff\xfe\n\n", "\xef\xbb\xbfdata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"completion_tokens\":3}}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}],\"usage\":{\"completion_tokens\":1}}\n\n",
		"data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"completion_tokens\":\"12\",\"prompt_tokens\":3.0}}\n\ndata: [DONE]\n\n",
		"data:{\"token\":{\"id\":1,\"text\":\"a\"},\"generated_text\":\"a\",\"details\":{\"generated_tokens\":-1,\"input_length\":1e3}}\n\n",
		"data: {\"content\":\"a\",\"stop\":true,\"tokens_predicted\":2.5,\"timings\":{\"predicted_n\":\"\\u00e9\xff\"}}\n\n",
	} {
		f.Add([]byte(s))
	}
	var adapters []*Adapter
	for _, name := range []string{"openai", "openai-chat", "openai-responses", "tgi", "llamacpp"} {
		adapters = append(adapters, mustLookup(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, a := range adapters {
			checkStream(t, a, b)
		}
	})
}

// FuzzNDJSON does the same for the NDJSON (Ollama) adapter.
func FuzzNDJSON(f *testing.F) {
	addFixtures(f, "*.ndjson")
	for _, s := range []string{
		"", "\n", "{}\n{}", "{\"response\":\"a\"}\r\n{\"done\":true,\"eval_count\":0}\r\n",
		"{\"error\":\"x\"}", "[1]\n", "{\"response\":\"a\",\"done\":false}\n\xff\n",
		"{\"response\":\"a\"}\n{\"done\":true,\"eval_count\":4294967296,\"prompt_eval_count\":[1]}\n",
	} {
		f.Add([]byte(s))
	}
	a := mustLookup(f, "ollama")
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStream(t, a, b)
	})
}
