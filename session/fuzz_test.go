package session

import (
	"bytes"
	"os"
	"testing"

	"github.com/goodput-dev/goodput/workload"
)

// fuzzFile feeds the fuzzer the lines of a test data file as seeds.
func fuzzFile(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, line := range bytes.Split(b, []byte("\n")) {
		f.Add(line)
	}
}

// checkSource fails when a source that read without error yields a flow
// that is not valid.
func checkSource(t *testing.T, src Source, err error) {
	if err != nil {
		return
	}
	for i := range int64(min(src.Len(), 8) + 1) {
		fl := src.Flow(i)
		if err := fl.Validate(); err != nil {
			t.Fatalf("flow %d is invalid: %v", i, err)
		}
		if len(fl.Calls) > src.MaxCalls() {
			t.Fatalf("flow %d has %d calls, above MaxCalls %d", i, len(fl.Calls), src.MaxCalls())
		}
	}
	_ = src.String()
}

func FuzzReadSessions(f *testing.F) {
	fuzzFile(f, "testdata/sessions.jsonl")
	f.Add([]byte(`{"turns":[{"prompt":"a"},{"input_len":3,"think_ms":1e308}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		wc := fileConfig(DatasetSessions, "fuzz")
		src, err := ReadSessions(bytes.NewReader(data), "fuzz", wc, DefaultConfig())
		checkSource(t, src, err)
	})
}

func FuzzReadTasks(f *testing.F) {
	fuzzFile(f, "testdata/tasks.jsonl")
	f.Add([]byte(`{"calls":[{"id":"a","prompt":"x"},{"after":["a","a"],"prompt":"y","fresh":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		wc := fileConfig(DatasetAgent, "fuzz")
		src, err := ReadTasks(bytes.NewReader(data), "fuzz", wc, DefaultConfig())
		checkSource(t, src, err)
	})
}

func FuzzReadShareGPT(f *testing.F) {
	fuzzFile(f, "testdata/sharegpt_multi.json")
	f.Add([]byte(`[{"conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		wc := fileConfig(workload.DatasetShareGPT, "fuzz")
		c := DefaultConfig()
		c.MultiTurn = true
		src, err := ReadShareGPT(bytes.NewReader(data), "fuzz", wc, c)
		checkSource(t, src, err)
	})
}

func FuzzParseThink(f *testing.F) {
	for _, s := range []string{"2s", "exp:1s", "uniform:1s-2s", "uniform:-", "1e9", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThink(s)
		if err != nil {
			return
		}
		if err := th.validate(); err != nil {
			t.Fatalf("ParseThink(%q) = %+v, which is invalid: %v", s, th, err)
		}
		if back, err := ParseThink(th.String()); err != nil || back != th {
			t.Fatalf("%q: %+v renders as %q, which reads back as %+v, %v", s, th, th.String(), back, err)
		}
	})
}

func FuzzParseSpan(f *testing.F) {
	for _, s := range []string{"4", "2-6", "0-1", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpan(s)
		if err == nil && (sp.Lo < 1 || sp.Hi < sp.Lo) {
			t.Fatalf("ParseSpan(%q) = %+v", s, sp)
		}
	})
}
