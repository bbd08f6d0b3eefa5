package record

import (
	"io"
	"strconv"
	"strings"
	"testing"
)

// One request is one record: a sequence number read twice is an error that
// names the file, both lines and the number, wherever the copy lies.
func TestDecoderRefusesASeqTwice(t *testing.T) {
	const head = `{"kind":"goodput.run","schema":1}` + "\n"
	cases := []struct{ name, in, want string }{
		// a record line copied to the end of a cut-off file
		{"appended", head + `{"seq":0}` + "\n" + `{"seq":1}` + "\n" + `{"seq":2}` + "\n" + `{"seq":1}` + "\n",
			"runs.jsonl:5: seq 1 appears again (first at line 3): a request counted twice"},
		// one record forty times, with an end marker that counts them:
		// the count alone cannot tell
		{"one record many times", head + strings.Repeat(`{"seq":7}`+"\n", 40) + `{"kind":"goodput.end","records":40,"end":9}` + "\n",
			"runs.jsonl:3: seq 7 appears again (first at line 2): a request counted twice"},
		// a file without a header is held to it too
		{"no header", `{"seq":3}` + "\n" + `{"seq":3}`,
			"runs.jsonl:2: seq 3 appears again (first at line 1): a request counted twice"},
		// numbers far apart, kept outside the dense slice
		{"sparse", `{"seq":5000000000}` + "\n" + `{"seq":0}` + "\n" + `{"seq":5000000000}`,
			"runs.jsonl:3: seq 5000000000 appears again (first at line 1): a request counted twice"},
		// a number first seen beyond the slice, met again once it grew past it
		{"grown past", bigThenDense(),
			"runs.jsonl:3002: seq 2000 appears again (first at line 1): a request counted twice"},
	}
	for _, c := range cases {
		seqs, _, err := readSeqs(c.in)
		if err == nil || err == io.EOF || err.Error() != c.want {
			t.Errorf("%s: read %d records, then %v; want %q", c.name, len(seqs), err, c.want)
		}
	}
	// Distinct numbers, in any order and with gaps, are read whole.
	seqs, _, err := readSeqs(head + `{"seq":4}` + "\n" + `{"seq":0}` + "\n" + `{"seq":1000000}` + "\n" + `{"seq":2}` + "\n")
	if err != io.EOF || len(seqs) != 4 {
		t.Errorf("distinct numbers: read %v, then %v; want 4 records and io.EOF", seqs, err)
	}
}

// bigThenDense is a file whose first record's number, 2000, lies beyond
// what the dense slice covers then, followed by 0 … 2999 on lines 2 … 3001
// and 2000 again.
func bigThenDense() string {
	var b strings.Builder
	b.WriteString(`{"seq":2000}` + "\n")
	for i := range 3000 {
		if i == 2000 {
			b.WriteString(`{"seq":999999}` + "\n")
			continue
		}
		b.WriteString(`{"seq":` + strconv.Itoa(i) + "}\n")
	}
	b.WriteString(`{"seq":2000}` + "\n")
	return b.String()
}
