package backend

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidJSON(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string // part of the error message
	}{
		{`{}`, true, ""}, // empty object
		{` {"a" : [1, -2.5e+3, true, false, null]} `, true, ""},             // every scalar, spaces everywhere
		{`{"a":{"b":{"c":[[],{}]}}}`, true, ""},                             // nesting
		{`"\u00e9\n\"\\\/"`, true, ""},                                      // every escape
		{`0`, true, ""},                                                     // bare zero
		{`-0.0e-0`, true, ""},                                               // signs everywhere
		{``, false, "unexpected end"},                                       // empty input
		{`{`, false, "unexpected end"},                                      // unterminated object
		{`{"a":1,}`, false, "want string"},                                  // trailing comma in object
		{`[1,]`, false, "want value"},                                       // trailing comma in array
		{`[,1]`, false, "want value"},                                       // leading comma
		{`{"a" 1}`, false, "want ':'"},                                      // missing colon
		{`{"a":1 "b":2}`, false, "want ',' or '}'"},                         // missing comma
		{`{a:1}`, false, "want string"},                                     // unquoted key
		{`01`, false, "after top-level value"},                              // leading zero
		{`1.`, false, "digit after '.'"},                                    // bare decimal point
		{`1e`, false, "digit in exponent"},                                  // bare exponent
		{`-`, false, "want digit"},                                          // lone minus
		{`tru`, false, "literal true"},                                      // cut literal
		{`nul1`, false, "literal null"},                                     // wrong literal
		{`"a`, false, "closing"},                                            // unterminated string
		{"\"a\x01\"", false, "control character"},                           // raw control byte
		{`"\x"`, false, "invalid escape"},                                   // bad escape
		{`"\u12G4"`, false, "\\u escape"},                                   // bad hex
		{`"\u12"`, false, "four hex digits"},                                // short \u
		{`{} {}`, false, "after top-level value"},                           // two values
		{`[` + strings.Repeat(`[`, maxJSONDepth) + `]`, false, "max depth"}, // too deep
	}
	for _, tt := range tests {
		err := validJSON([]byte(tt.in))
		if (err == nil) != tt.ok {
			t.Errorf("validJSON(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("validJSON(%q) = %q, want it to mention %q", tt.in, err, tt.want)
		}
		// encoding/json is the reference for what is valid.
		if json.Valid([]byte(tt.in)) != tt.ok {
			t.Errorf("json.Valid(%q) disagrees with the table", tt.in)
		}
	}
}

func TestScannerCount(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr string
	}{
		{`0`, 0, ""},                                // zero
		{`128`, 128, ""},                            // ordinary
		{`null`, -1, ""},                            // null means absent
		{`2147483647`, 2147483647, ""},              // the largest int32
		{`2147483648`, 0, "out of range"},           // one past it
		{`99999999999999999999`, 0, "out of range"}, // would overflow int64
		{`-1`, 0, "non-negative integer"},           // negative
		{`1.5`, 0, "non-negative integer"},          // fraction
		{`1e3`, 0, "non-negative integer"},          // exponent
		{`"12"`, 0, "want digit"},                   // a string, not a number
		{``, 0, "want digit"},                       // nothing
	}
	for _, tt := range tests {
		var s scanner
		s.reset([]byte(tt.in))
		got, err := s.count()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("count(%q) = %d, %v; want error with %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("count(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`plain`, "plain"},                // no escapes
		{`a\"b\\c\/d`, `a"b\c/d`},         // quote, backslash, solidus
		{`\b\f\n\r\t`, "\b\f\n\r\t"},      // control escapes
		{`\u00e9t\u00E9`, "été"},          // BMP, either case
		{`\ud83d\ude00`, "😀"},             // surrogate pair
		{`\ud83d`, "\uFFFD"},              // lone high surrogate
		{`\ude00x`, "\uFFFDx"},            // lone low surrogate
		{`\ud83d\u0041`, "\uFFFDA"},       // high surrogate, then not a low one
		{"caf\xc3\xa9 \xff", "café \xff"}, // raw bytes pass through, even invalid UTF-8
	}
	for _, tt := range tests {
		got, err := unquote(nil, []byte(tt.raw))
		if err != nil || string(got) != tt.want {
			t.Errorf("unquote(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
		// encoding/json agrees whenever the input is valid UTF-8.
		var ref string
		if err := json.Unmarshal([]byte(`"`+tt.raw+`"`), &ref); err == nil && utf8.ValidString(tt.raw) && ref != tt.want {
			t.Errorf("encoding/json unquotes %q to %q, the table says %q", tt.raw, ref, tt.want)
		}
	}
}

// FuzzJSONScan checks the scanner against encoding/json: both must accept
// and reject the same documents, and the scanner must never panic.
func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `-1.5e10`, `{"a":1,}`,
		`[1,]`, `01`, `"\u12"`, `{"choices":[{"text":"x","finish_reason":null}],"usage":{"completion_tokens":3}}`,
		"\"\x7f\xff\"", `[[[[[[[[]]]]]]]]`, ` true `, `nul`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := validJSON(b)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("validJSON(%q) = %v, json.Valid = %v", b, err, json.Valid(b))
		}
		if err != nil {
			return
		}
		// A valid string's contents unquote exactly as encoding/json does.
		// (json.Unmarshal also takes null into a string, leaving it empty:
		// that is not a string.)
		var want string
		if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '"' && json.Unmarshal(b, &want) == nil {
			var s scanner
			s.reset(b)
			raw, _, err := s.str()
			if err != nil {
				t.Fatalf("str(%q): %v", b, err)
			}
			got, err := unquote(nil, raw)
			if err != nil {
				t.Fatalf("unquote(%q): %v", raw, err)
			}
			// encoding/json shows each invalid byte as U+FFFD, as a rune
			// conversion does.
			if string([]rune(string(got))) != want {
				t.Fatalf("unquote(%q) = %q, encoding/json says %q", raw, got, want)
			}
		}
	})
}

// plainRun counts exactly the plain string bytes before the first special
// one: every byte value at every place in a run of plain ones, in the
// words it reads eight at a time and in the bytes after them.
func TestPlainRunStopsAtTheWordOfEverySpecialByte(t *testing.T) {
	for c := range 256 {
		for at := range 27 { // three words and three bytes
			b := bytes.Repeat([]byte("a"), 27)
			b[at] = byte(c)
			plain := 27
			if !plainStringByte[c] {
				plain = at
			}
			if got := plainRun(b); got != plain {
				t.Fatalf("plainRun with byte %#02x at %d = %d, want %d", c, at, got, plain)
			}
		}
	}
}

// A string with one special byte anywhere in it, long enough to be
// scanned a word at a time, is taken or refused as encoding/json does,
// and its contents end where the quote is.
func TestStringsWithASpecialByteAnywhere(t *testing.T) {
	for _, c := range []byte{'"', '\\', 0, 0x01, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xff} {
		for n := range 30 {
			for at := range n {
				in := bytes.Repeat([]byte("x"), n)
				in[at] = c
				doc := append(append([]byte(`"`), in...), '"')
				err := validJSON(doc)
				if (err == nil) != json.Valid(doc) {
					t.Fatalf("validJSON(%q) = %v, json.Valid = %v", doc, err, json.Valid(doc))
				}
				if c == '"' || err != nil {
					continue
				}
				var s scanner
				s.reset(doc)
				raw, _, err := s.str()
				if err != nil || !bytes.Equal(raw, in) || s.i != len(doc) {
					t.Fatalf("str(%q) = %q, %v at %d, want %q at %d", doc, raw, err, s.i, in, len(doc))
				}
			}
		}
	}
}
