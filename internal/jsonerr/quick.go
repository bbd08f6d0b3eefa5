package jsonerr

import "bytes"

// distinctKeys reports whether every object of the JSON document b holds
// keys that are distinct even regardless of case, as written (before
// unescaping). It reads b once, byte by byte, and is a filter for Keys:
// true means no key can be a duplicate in any sense Keys knows, so the
// walk beside the Go type is not needed; false means a key written twice,
// two keys that differ in case only, a key with an escape (whose
// unescaped form may repeat another), or a document it cannot follow —
// any of which Keys then decides exactly, as it does an object of more
// than maxQuickKeys keys, which this would compare pairwise.
func distinctKeys(b []byte) bool {
	// One frame per open object or array: where its keys begin in keys,
	// and for an object whether the next string is a key.
	type frame struct {
		object, wantKey bool
		first           int
	}
	var stackBuf [16]frame
	stack := stackBuf[:0]
	var keysBuf [32][]byte
	keys := keysBuf[:0] // the keys of every open object, outermost first
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{', wantKey: c == '{', first: len(keys)})
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1].object != (c == '}') {
				return false
			}
			keys = keys[:stack[len(stack)-1].first]
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
		case '"':
			start := i + 1
			escaped := false
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					escaped = true
					i++
				}
			}
			if i >= len(b) {
				return false
			}
			top := len(stack) - 1
			if top < 0 || !stack[top].wantKey {
				continue // a value
			}
			stack[top].wantKey = false
			if escaped {
				return false
			}
			key := b[start:i]
			if len(keys)-stack[top].first >= maxQuickKeys {
				return false
			}
			for _, k := range keys[stack[top].first:] {
				if len(k) == len(key) && bytes.EqualFold(k, key) {
					return false
				}
			}
			keys = append(keys, key)
		}
	}
	return len(stack) == 0
}

// maxQuickKeys bounds the keys of one object that distinctKeys compares.
const maxQuickKeys = 64
