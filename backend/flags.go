package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// ParseExtra parses the value of --extra-body: a JSON object merged into
// every request body (see Request.Extra). Numbers keep their exact text, so
// a 64-bit seed survives the round trip.
func ParseExtra(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if line, col, ok := jsonerr.Position([]byte(s), err); ok && line == 1 {
			return nil, fmt.Errorf("--extra-body: at column %d: %w", col, err)
		} else if ok {
			return nil, fmt.Errorf("--extra-body: line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("--extra-body: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("--extra-body: want a JSON object, got %s", jsonKind(v))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("--extra-body: unexpected data after the object at offset %d", dec.InputOffset())
	}
	// Two values of one key: the server would get one of them.
	if err := jsonerr.Keys([]byte(s), nil); err != nil {
		return nil, fmt.Errorf("--extra-body: %w", err)
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// ParseHeaders parses --header values, each "Name=value" (as `vllm bench
// serve` takes them) or "Name: value" (as curl does), into a header set.
// Names must be valid HTTP field names; values must not contain line
// breaks or NUL.
func ParseHeaders(specs []string) (http.Header, error) {
	h := make(http.Header, len(specs))
	for i, spec := range specs {
		cut := strings.IndexAny(spec, ":=")
		if cut < 0 {
			return nil, fmt.Errorf("--header %d %q: want Name=value or Name: value", i+1, spec)
		}
		name, value := strings.TrimSpace(spec[:cut]), strings.TrimSpace(spec[cut+1:])
		if name == "" {
			return nil, fmt.Errorf("--header %d %q: empty name", i+1, spec)
		}
		for _, r := range name {
			if !isTokenChar(r) {
				return nil, fmt.Errorf("--header %d %q: character %q not allowed in a header name", i+1, spec, r)
			}
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, fmt.Errorf("--header %d %q: line break or NUL in the value", i+1, spec)
		}
		h.Add(name, value)
	}
	return h, nil
}

// isTokenChar reports whether r may appear in an HTTP field name (RFC 9110
// tchar).
func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
