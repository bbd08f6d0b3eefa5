package bom

import (
	"io"
	"strings"
	"testing"
)

func TestSkip(t *testing.T) {
	for in, want := range map[string]string{
		"\xef\xbb\xbf{\"a\":1}\n": "{\"a\":1}\n", // the mark dropped
		"{\"a\":1}\n":             "{\"a\":1}\n", // nothing to drop
		"\xef\xbb":                "\xef\xbb",    // a part of one is data
		"":                        "",
		"a\xef\xbb\xbf":           "a\xef\xbb\xbf", // only at the start
	} {
		b, err := io.ReadAll(Skip(strings.NewReader(in)))
		if err != nil || string(b) != want {
			t.Errorf("Skip(%q) = %q, %v; want %q", in, b, err, want)
		}
	}
}
