package backend

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
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
		ok      bool // a count, not JSON that is some other value
		wantErr string
	}{
		{`0`, 0, true, ""},                   // zero
		{`128`, 128, true, ""},               // ordinary
		{` 7 `, 7, true, ""},                 // white space around it
		{`null`, -1, true, ""},               // null means absent
		{`2147483647`, 2147483647, true, ""}, // the largest int32
		// Whole numbers written as floats are the counts they denote.
		{`3.0`, 3, true, ""},
		{`1e3`, 1000, true, ""},
		{`1E+3`, 1000, true, ""},
		{`2.5e1`, 25, true, ""},
		{`1200e-2`, 12, true, ""},
		{`0.0`, 0, true, ""},
		{`-0`, 0, true, ""},    // zero, though signed
		{`0e999`, 0, true, ""}, // zero, however large its exponent
		{`2147483647.000`, 2147483647, true, ""},
		{`0.00000000000000000000000000000000000000001e41`, 1, true, ""}, // exact, not through a float
		// Valid JSON that is no count: dropped (-1), not an error.
		{`2147483648`, -1, false, ""},           // one past int32
		{`99999999999999999999`, -1, false, ""}, // would overflow int64
		{`2.147483648e9`, -1, false, ""},        // one past int32, as a float
		{`1e10`, -1, false, ""},                 // past int32 by its exponent
		{`1e999999999999999999999`, -1, false, ""},
		{`-1`, -1, false, ""},                 // negative
		{`-1.0`, -1, false, ""},               // negative, as a float
		{`1.5`, -1, false, ""},                // fraction
		{`3.0000000000000001`, -1, false, ""}, // a fraction a float would round away
		{`15e-1`, -1, false, ""},              // a fraction by its exponent
		{`1e-999999999999999999999`, -1, false, ""},
		{`"12"`, -1, false, ""},    // a string, not a number
		{`true`, -1, false, ""},    // a boolean
		{`[1]`, -1, false, ""},     // an array
		{`{"n":1}`, -1, false, ""}, // an object
		// JSON that does not parse is an error, as before.
		{``, 0, false, "unexpected end of JSON"},
		{`-`, 0, false, "want digit"},
		{`1.`, 0, false, "want digit after '.'"},
		{`1e`, 0, false, "want digit in exponent"},
		{`"12`, 0, false, "closing '\"'"},
		{`tru`, 0, false, "literal true"},
		{`{"n":}`, 0, false, "want value"},
		{`x`, 0, false, "want value"},
	}
	for _, tt := range tests {
		var s scanner
		s.reset([]byte(tt.in))
		got, ok, err := s.count()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("count(%q) = %d, %v, %v; want error with %q", tt.in, got, ok, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("count(%q) = %d, %v, %v; want %d, %v", tt.in, got, ok, err, tt.want, tt.ok)
		}
		if err == nil {
			if err := s.end(); err != nil {
				t.Errorf("count(%q) left %q unread", tt.in, tt.in[s.i:])
			}
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

// FuzzScannerCount checks count against exact arithmetic: it fails only
// on what encoding/json rejects, and takes a value as a count exactly when
// the value is null or a number whose exact value (big.Rat's) is a whole
// number from 0 to math.MaxInt32, which is then the count.
func FuzzScannerCount(f *testing.F) {
	for _, s := range []string{
		`0`, `7`, `null`, `3.0`, `1e3`, `-0`, `-1`, `1.5`, `2147483647`, `2147483648`, `2.147483647e9`,
		`1e999`, `0e-999`, `1200e-2`, `"12"`, `{}`, `[1]`, `true`, `01`, `1.`, ` 5 `, `5 x`,
		`0.00000000000000000000000000000000000000001e41`, `3.0000000000000001`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s scanner
		s.reset(b)
		n, ok, err := s.count()
		if err == nil {
			err = s.end()
		}
		if (err == nil) != json.Valid(b) {
			t.Fatalf("count(%q): %v, json.Valid = %v", b, err, json.Valid(b))
		}
		if err != nil {
			return
		}
		trimmed := bytes.TrimSpace(b)
		want, wantOK := -1, string(trimmed) == "null"
		if c := trimmed[0]; c == '-' || isDigit(c) {
			r, isNum := new(big.Rat).SetString(string(trimmed))
			if !isNum {
				return // an exponent past big.Rat's; TestScannerCount has some
			}
			if r.IsInt() && r.Sign() >= 0 && r.Num().Cmp(big.NewInt(math.MaxInt32)) <= 0 {
				want, wantOK = int(r.Num().Int64()), true
			}
		}
		if n != want || ok != wantOK {
			t.Fatalf("count(%q) = %d, %v; exactly it is %d, %v", b, n, ok, want, wantOK)
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
