package textblock

import (
	"errors"
	"strings"
	"testing"
)

func TestRule(t *testing.T) {
	tests := []struct {
		name  string
		c     byte
		title string
		want  string
	}{
		// No title: a plain rule of Width characters.
		{"plain", '=', "", strings.Repeat("=", 50)},
		// 43 characters to share: 21 on the left, the odd one on the right.
		{"odd remainder goes right", '-', "Goodput", strings.Repeat("-", 21) + "Goodput" + strings.Repeat("-", 22)},
		// The summary's title with its spaces: 50−26 = 24, 12 each side.
		{"title with spaces", '=', " Serving Benchmark Result ", strings.Repeat("=", 12) + " Serving Benchmark Result " + strings.Repeat("=", 12)},
		// Width counts characters, not bytes: a title with "ü" (two bytes)
		// still makes a line of exactly Width characters.
		{"multi-byte title", '-', "Zeit für Tokens", strings.Repeat("-", 17) + "Zeit für Tokens" + strings.Repeat("-", 18)},
		// 42 characters leave exactly four a side.
		{"four a side", '-', strings.Repeat("x", 42), "----" + strings.Repeat("x", 42) + "----"},
		// 48 characters would leave one a side: they get four, and the
		// line is longer than Width, never a title without its rule.
		{"one a side", '-', strings.Repeat("x", 48), "----" + strings.Repeat("x", 48) + "----"},
		// Longer than Width: four a side, never cut.
		{"longer than the rule", '-', strings.Repeat("y", 60), "----" + strings.Repeat("y", 60) + "----"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			p := New(&b)
			p.Rule(tt.c, tt.title)
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want+"\n" {
				t.Errorf("got  %q\nwant %q", got, tt.want+"\n")
			}
		})
	}
}

func TestKV(t *testing.T) {
	tests := []struct {
		name, key, value, want string
	}{
		// The value starts at column KeyWidth+1.
		{"short key", "Successful requests:", "100", "Successful requests:" + strings.Repeat(" ", 20) + " 100"},
		// Padding counts characters: "λ" is two bytes but one column.
		{"multi-byte key", "λ:", "2.00", "λ:" + strings.Repeat(" ", 38) + " 2.00"},
		// An empty key indents the value to the value column (List's
		// continuation lines).
		{"empty key", "", "more", strings.Repeat(" ", 41) + "more"},
		// A key of exactly KeyWidth gets the one separating space.
		{"key fills the column", strings.Repeat("k", 40), "v", strings.Repeat("k", 40) + " v"},
		// A longer key is not cut; the value is pushed right.
		{"key longer than the column", strings.Repeat("k", 45), "v", strings.Repeat("k", 45) + " v"},
		// An empty value leaves the padded key and its space.
		{"empty value", "Status:", "", "Status:" + strings.Repeat(" ", 33) + " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			New(&b).KV(tt.key, tt.value)
			if got := b.String(); got != tt.want+"\n" {
				t.Errorf("got  %q\nwant %q", got, tt.want+"\n")
			}
		})
	}
}

func TestList(t *testing.T) {
	pad := func(k string) string { return k + strings.Repeat(" ", 41-len(k)) }
	tests := []struct {
		name  string
		items []string
		want  string
	}{
		// No items: nothing at all, not even the key.
		{"none", nil, ""},
		// One item sits on the key's line.
		{"one", []string{"a"}, pad("Missing:") + "a\n"},
		// Later items line up under the first.
		{"three", []string{"a", "b", "c"}, pad("Missing:") + "a\n" + pad("") + "b\n" + pad("") + "c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			New(&b).List("Missing:", tt.items)
			if got := b.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n, calls int
	err      error
}

func (f *failAfter) Write(b []byte) (int, error) {
	f.calls++
	if f.calls > f.n {
		return 0, f.err
	}
	return len(b), nil
}

// TestErrKeepsFirst checks that the first write error stops all later
// writes and is the one Err returns.
func TestErrKeepsFirst(t *testing.T) {
	tests := []struct {
		name    string
		n       int  // writes that succeed
		wantErr bool // whether the four lines below hit the failure
	}{
		// Every write fails: one attempt, then silence.
		{"first write fails", 0, true},
		// The third write fails: two lines out, one attempt, then silence.
		{"third write fails", 2, true},
		// Enough room: no error.
		{"no failure", 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			boom := errors.New("disk full")
			w := &failAfter{n: tt.n, err: boom}
			p := New(w)
			p.Rule('=', "T")
			p.KV("a:", "1")
			p.Line("plain")
			p.List("b:", []string{"x"})
			wantCalls := 4
			if tt.wantErr {
				wantCalls = tt.n + 1
			}
			if w.calls != wantCalls {
				t.Errorf("%d writes attempted, want %d", w.calls, wantCalls)
			}
			switch err := p.Err(); {
			case tt.wantErr && !errors.Is(err, boom):
				t.Errorf("Err() = %v, want %v", err, boom)
			case !tt.wantErr && err != nil:
				t.Errorf("Err() = %v, want nil", err)
			}
		})
	}
}
