package record

import (
	"encoding/json"
	"testing"
)

func TestAppendJSONString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Nothing to escape: an empty string is still a string.
		{"empty", "", `""`},
		// Plain ASCII passes through.
		{"plain", "stop", `"stop"`},
		// Quotes and backslashes are escaped with a backslash.
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		// The three common controls get their short escapes.
		{"short escapes", "a\nb\rc\td", `"a\nb\rc\td"`},
		// Other controls, NUL and 0x1f included, get \u00XX in lower-case hex.
		{"other controls", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		// DEL is not a JSON control character and passes through, as with
		// encoding/json.
		{"del", "a\x7fb", "\"a\x7fb\""},
		// HTML characters stay readable: prompts are full of <|im_start|>.
		{"html", "<|im_start|>&", `"<|im_start|>&"`},
		// Valid multi-byte UTF-8 is copied unchanged.
		{"utf-8", "ünïcode 日本 🙂", `"ünïcode 日本 🙂"`},
		// Each invalid byte becomes one U+FFFD.
		{"invalid bytes", "bad \xff\xfe", `"bad \ufffd\ufffd"`},
		// A rune cut off at the end of the input is invalid, byte by byte.
		{"truncated rune", "a\xe6\x97", `"a\ufffd\ufffd"`},
		// A surrogate encoded in UTF-8 is not valid UTF-8.
		{"surrogate", "\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendJSONString(nil, tt.in)); got != tt.want {
				t.Errorf("string: got %s, want %s", got, tt.want)
			}
			if got := string(AppendJSONString(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("[]byte: got %s, want %s", got, tt.want)
			}
			// The result appends: what dst held is kept.
			if got := string(AppendJSONString([]byte("x:"), tt.in)); got != "x:"+tt.want {
				t.Errorf("append: got %s, want x:%s", got, tt.want)
			}
		})
	}
}

// TestAppendJSONStringAllocs checks that both instantiations write into a
// large enough dst without allocating: the simulator calls the byte-slice
// one for every token of every stream.
func TestAppendJSONStringAllocs(t *testing.T) {
	const in = "tëxt with \"quotes\", \x01 and \xff"
	dst := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { dst = AppendJSONString(dst[:0], in) }); n != 0 {
		t.Errorf("string: %v allocations per call, want 0", n)
	}
	b := []byte(in)
	if n := testing.AllocsPerRun(100, func() { dst = AppendJSONString(dst[:0], b) }); n != 0 {
		t.Errorf("[]byte: %v allocations per call, want 0", n)
	}
}

// FuzzAppendJSONString checks that any bytes give valid JSON that decodes to
// what encoding/json decodes from its own encoding of the same bytes, and
// that the string and byte-slice forms agree.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\r\t", "\x00\x1f\x7f", "ünï 🙂", "\xff\xfe", "a\xe6\x97", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendJSONString(nil, s)
		if !json.Valid(out) {
			t.Fatalf("AppendJSONString(%q) = %s: not valid JSON", s, out)
		}
		if b := AppendJSONString(nil, []byte(s)); string(b) != string(out) {
			t.Fatalf("AppendJSONString(%q): []byte form %s, string form %s", s, b, out)
		}
		var got, want string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("decode %s: %v", out, err)
		}
		ref, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("AppendJSONString(%q) decodes to %q, encoding/json's to %q", s, got, want)
		}
	})
}
