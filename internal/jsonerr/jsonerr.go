// Package jsonerr words encoding/json's errors for people who wrote the
// JSON, not the Go types it was decoded into.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Position returns the line and column (from 1) of the byte at which a
// syntax error err stopped decoding the document b, and whether err is
// one. The decoder's Offset counts the bytes read up to and including
// the bad one.
func Position(b []byte, err error) (line, col int, ok bool) {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return 0, 0, false
	}
	i := max(min(int(se.Offset), len(b))-1, 0)
	before := b[:i]
	return bytes.Count(before, []byte("\n")) + 1, i - bytes.LastIndexByte(before, '\n'), true
}

// Plain rewrites a decoding error that names Go types (the
// decoder's own text) into words about the file's JSON: which field wanted
// what, and what it got. Other errors pass unchanged.
func Plain(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err
	}
	var want string
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "an integer"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.Bool:
		want = "true or false"
	case reflect.Slice, reflect.Array:
		want = "a JSON array"
	default:
		want = "a JSON object"
	}
	if te.Field == "" {
		return fmt.Errorf("want %s, got a JSON %s", want, te.Value)
	}
	return fmt.Errorf("%q: want %s, got a JSON %s", te.Field, want, te.Value)
}
