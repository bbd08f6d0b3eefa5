package record

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// readAll decodes in to its end and returns the records and the error
// that stopped it (io.EOF at a clean end).
func readAll(in string) ([]Record, error) {
	d := NewDecoder(strings.NewReader(in), "runs.jsonl")
	var recs []Record
	for {
		var r Record
		if err := d.Next(&r); err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
}

const header = `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z","tool":"goodput test"}` + "\n"

// A key written twice in a line is refused: whichever value won, the
// other was the file's too. The error names the file, the line and the key.
func TestDecoderRefusesDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// the end time twice: either would make a different e2e
		{"record", header + `{"seq":1,"te":5}` + "\n" + `{"seq":2,"te":10,"te":20}` + "\n",
			`runs.jsonl:3: key "te" appears twice: which value is meant cannot be told`},
		// a null value is a key all the same
		{"null then value", `{"seq":1,"out":null,"te":9,"out":3}`,
			`runs.jsonl:1: key "out" appears twice`},
		// "\u0074\u0065" is "te" once unescaped
		{"escaped", `{"seq":1,"te":9,"\u0074\u0065":3}`,
			`runs.jsonl:1: key "te" appears twice`},
		// a label is read as the record's too
		{"label", `{"seq":1,"te":9,"labels":{"point":"c1","point":"c16"}}`,
			`runs.jsonl:1: label "point" appears twice`},
		// the header's keys are the run's
		{"header", `{"kind":"goodput.run","schema":1,"tool":"a","tool":"b"}` + "\n" + `{"seq":1,"te":1}`,
			`runs.jsonl:1: run header: key "tool" appears twice`},
		// a nested key of the header: its config
		{"header config", `{"kind":"goodput.run","schema":1,"config":{"rate":5,"rate":50}}`,
			`runs.jsonl:1: run header: key "rate" in config appears twice`},
		// encoding/json fills Schema from "Schema" too
		{"header case", `{"kind":"goodput.run","schema":1,"Schema":1}`,
			`runs.jsonl:1: run header: keys "schema" and "Schema" name the same field`},
		// the trailer's count is checked against the records
		{"trailer", header + `{"seq":1,"te":1}` + "\n" + `{"kind":"goodput.end","records":1,"records":2,"end":5}` + "\n",
			`runs.jsonl:3: trailer: key "records" appears twice`},
		// a trailer whose "kind" is not first
		{"trailer reordered", header + `{"seq":1,"te":1}` + "\n" + `{"records":1,"kind":"goodput.end","end":5,"end":6}` + "\n",
			`runs.jsonl:3: trailer: key "end" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(tt.in)
			if err == io.EOF || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v,\nwant %s…", err, tt.want)
			}
		})
	}
}

// Keys differing only in case are distinct: a record's keys are read as
// written, so "Te" is a key of some other version, skipped, and "te" is
// the end time. Likewise labels.
func TestDecoderKeysDifferingInCase(t *testing.T) {
	recs, err := readAll(header + `{"seq":1,"te":9,"Te":3,"labels":{"a":"x","A":"y"}}` + "\n")
	if err != io.EOF || len(recs) != 1 {
		t.Fatalf("read %d records, then %v", len(recs), err)
	}
	if r := recs[0]; r.End != 9 || r.Labels["a"] != "x" || r.Labels["A"] != "y" || len(r.Labels) != 2 {
		t.Errorf("record = %+v, want te 9 and labels a=x, A=y", r)
	}
	// An unknown key twice changes nothing read: it is skipped.
	recs, err = readAll(`{"seq":1,"te":9,"future":1,"future":2}`)
	if err != io.EOF || len(recs) != 1 || recs[0].End != 9 {
		t.Errorf("read %v, then %v", recs, err)
	}
}

// Every key AppendJSON writes is one keyBit knows, so none can be written
// twice unnoticed; and each is refused when it is.
func TestKeyBitCoversEveryKey(t *testing.T) {
	seen := map[uint64]string{}
	for _, k := range recordKeys {
		bit := keyBit([]byte(k))
		if bit == 0 {
			t.Errorf("keyBit(%q) = 0", k)
		}
		if other, ok := seen[bit]; ok {
			t.Errorf("%q and %q share a bit", k, other)
		}
		seen[bit] = k
	}
	for _, k := range []string{"", "x", "Seq", "seqs", "labels2", "prefill_nss"} {
		if keyBit([]byte(k)) != 0 {
			t.Errorf("keyBit(%q) != 0", k)
		}
	}
	for _, r := range sample() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(AppendJSON(nil, &r), &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if keyBit([]byte(k)) == 0 {
				t.Errorf("AppendJSON writes %q, which keyBit does not know", k)
			}
		}
	}
	for _, k := range recordKeys {
		if k == "kind" {
			continue
		}
		v := "1"
		switch k {
		case "ct", "ck", "cr":
			v = "[]"
		case "rsrc", "src", "fin", "err", "msg", "rid", "sid", "task", "call", "ep":
			v = `"x"`
		case "warm", "whole":
			v = "true"
		case "labels":
			v = "{}"
		}
		line := `{"seq":1,"te":1,"` + k + `":` + v + `,"` + k + `":` + v + `}`
		if k == "seq" || k == "te" {
			line = `{"seq":1,"te":1,"` + k + `":1}`
		}
		// and a null first: the bit the decoder's switch marks for a value
		// is keyBit's, which marks a null
		nullFirst := `{"seq":1,"te":1,"` + k + `":null,"` + k + `":` + v + `}`
		if k == "seq" || k == "te" {
			nullFirst = `{"seq":1,"te":1,"` + k + `":null}`
		}
		for _, line := range []string{line, nullFirst} {
			_, err := readAll(line)
			if err == nil || !strings.Contains(err.Error(), `key "`+k+`" appears twice`) {
				t.Errorf("%s: %v", line, err)
			}
		}
	}
}
