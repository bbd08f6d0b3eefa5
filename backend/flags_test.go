package backend

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParseExtra(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // the object re-encoded, or "" for an error
		wantErr  string
	}{
		{"object", `{"temperature":0.7,"top_p":1}`, `{"temperature":0.7,"top_p":1}`, ""},
		{"big integers stay exact", `{"seed":18446744073709551615}`, `{"seed":18446744073709551615}`, ""},
		{"nested and null", ` {"a":{"b":null}} `, `{"a":{"b":null}}`, ""},
		{"empty object", `{}`, `{}`, ""},
		{"empty string", ``, "", "--extra-body: EOF"},
		{"array", `[1]`, "", "--extra-body: want a JSON object, got an array"},
		{"null", `null`, "", "got null"},
		{"string", `"x"`, "", "got a string"},
		{"number", `1`, "", "got a number"},
		{"boolean", `true`, "", "got a boolean"},
		{"two objects", `{} {}`, "", "--extra-body: unexpected data after the object at offset"},
		{"junk after", `{} x`, "", "--extra-body: unexpected data after the object"},
		{"bad JSON", `{"a":}`, "", "--extra-body: at column 6: invalid character '}'"},
		{"bad JSON, second line", "{\"a\": 1,\n bad}", "", "--extra-body: line 2, column 2: invalid character 'b'"},
	}
	for _, tt := range tests {
		m, err := ParseExtra(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		b, _ := json.Marshal(m)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: ParseExtra(%q) = %s, %v; want %s", tt.name, tt.in, b, err, tt.want)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    http.Header
		wantErr string
	}{
		{"vllm style", []string{"x-additional-info=0.3.3"}, http.Header{"X-Additional-Info": {"0.3.3"}}, ""},
		{"curl style", []string{"Authorization: Bearer a=b:c"}, http.Header{"Authorization": {"Bearer a=b:c"}}, ""},
		{"value with a colon after =", []string{"X-Url=http://h:1"}, http.Header{"X-Url": {"http://h:1"}}, ""},
		{"repeated name adds", []string{"X-A=1", "x-a: 2"}, http.Header{"X-A": {"1", "2"}}, ""},
		{"empty value", []string{"X-Empty="}, http.Header{"X-Empty": {""}}, ""},
		{"none", nil, http.Header{}, ""},
		{"no separator", []string{"X-A=1", "Authorization"}, nil, `--header 2 "Authorization": want Name=value or Name: value`},
		{"empty name", []string{": v"}, nil, `--header 1 ": v": empty name`},
		{"space in the name", []string{"X A=1"}, nil, `character ' ' not allowed in a header name`},
		{"non-ASCII name", []string{"Clé=1"}, nil, `character 'é' not allowed`},
		{"line break in the value", []string{"X-A=1\r\nX-B: 2"}, nil, "line break or NUL in the value"},
		{"NUL in the value", []string{"X-A=1\x00"}, nil, "line break or NUL in the value"},
	}
	for _, tt := range tests {
		got, err := ParseHeaders(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ParseHeaders(%q) = %v, %v; want %v", tt.name, tt.in, got, err, tt.want)
		}
	}
}

func TestParseUsageMode(t *testing.T) {
	for _, m := range []UsageMode{UsageContinuous, UsageFinal, UsageNone} {
		got, err := ParseUsageMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseUsageMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	for _, bad := range []string{"", "Continuous", "full", "none "} {
		if _, err := ParseUsageMode(bad); err == nil || !strings.Contains(err.Error(), "want continuous, final or none") {
			t.Errorf("ParseUsageMode(%q) error %v", bad, err)
		}
	}
	if s := UsageMode(9).String(); s != "UsageMode(9)" {
		t.Errorf("String of an unknown mode = %q", s)
	}
}

func FuzzParseExtra(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `[1]`, `{"a":{"b":null}} x`, ``, `{"seed":1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseExtra(s)
		if err != nil {
			if m != nil || !strings.HasPrefix(err.Error(), "--extra-body: ") {
				t.Fatalf("ParseExtra(%q) = %v, %v", s, m, err)
			}
			return
		}
		// What parses is a JSON object that merges into a body.
		if !json.Valid([]byte(s)) || m == nil {
			t.Fatalf("ParseExtra accepted %q", s)
		}
		body := map[string]any{"stream": true}
		mergeExtra(body, m)
		if _, err := json.Marshal(body); err != nil {
			t.Fatalf("merged body for %q does not encode: %v", s, err)
		}
	})
}

func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"A=1", "Authorization: Bearer x", "=", ":", "X A=1", "a=\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeaders([]string{s})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--header 1 ") {
				t.Fatalf("error %q does not name the flag", err)
			}
			return
		}
		// An accepted header is one net/http will send.
		for k, vs := range h {
			if k == "" || strings.ContainsAny(k, " :=\r\n") {
				t.Fatalf("accepted name %q from %q", k, s)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("accepted value %q from %q", v, s)
				}
			}
		}
	})
}

// The protocols that carry ignore_eos are those whose requests with it
// build: OpenAI-style and llama.cpp's, not TGI's nor Ollama's.
func TestSendsIgnoreEOS(t *testing.T) {
	for name, want := range map[string]bool{"openai": true, "vllm": true, "sglang": true, "openai-chat": true, "openai-responses": true, "llamacpp": true, "tgi": false, "ollama": false} {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.SendsIgnoreEOS(); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
