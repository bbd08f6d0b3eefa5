package jsonerr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DuplicateKeyError is a key that one object of a JSON document holds
// twice. encoding/json keeps the last of them without a word, so a file
// edited by hand or pasted together would be read with one of its values
// silently dropped.
type DuplicateKeyError struct {
	// Line is the line (from 1) of the second key in a document of
	// several lines, and 0 in a document of one line, whose reader names
	// the line itself.
	Line int
	// Path is the object's place in the document, "" for the top level,
	// as in requests[3].latency.
	Path string
	// Key is the key as read the second time, unescaped; First is the
	// key it repeats, which differs from Key in case only when the two
	// name one field of the Go value (encoding/json matches a field's
	// name regardless of case).
	Key, First string
}

func (e *DuplicateKeyError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	where := strconv.Quote(e.Key)
	if e.Path != "" {
		where += " in " + e.Path
	}
	if e.First != e.Key {
		fmt.Fprintf(&b, "keys %q and %s name the same field (keys are matched regardless of case): which value is meant cannot be told", e.First, where)
	} else {
		fmt.Fprintf(&b, "key %s appears twice: which value is meant cannot be told", where)
	}
	return b.String()
}

// Unmarshal is json.Unmarshal that also refuses, with a
// *DuplicateKeyError, a document holding a key twice in one object (see
// Keys). Decoding errors come first, as json.Unmarshal gives them.
func Unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	return Keys(b, v)
}

// Keys returns a *DuplicateKeyError for the first key that an object of
// the JSON document b holds twice, and nil when there is none. Keys are
// compared after unescaping ("a" and "\u0061" are one key). Where v, the
// Go value b is decoded into, has a struct, the keys of its object that
// differ only in case are duplicates too, as encoding/json puts both into
// one field; in a map, and in parts of the document v has no place for,
// they are distinct keys. b must be a document json.Unmarshal accepts;
// for one it does not, Keys returns the decoder's error or nil. Memory grows with
// the document's nesting and the keys of its largest object, not its size.
func Keys(b []byte, v any) error {
	if distinctKeys(b) {
		return nil // no two keys alike in any case: nothing to find
	}
	return walkKeys(b, v)
}

// walkKeys is Keys without the filter: it reads b's tokens beside v's type.
func walkKeys(b []byte, v any) error {
	var t reflect.Type
	if v != nil {
		t = reflect.TypeOf(v)
	}
	k := keyWalker{dec: json.NewDecoder(bytes.NewReader(b)), b: b}
	k.dec.UseNumber()
	tok, err := k.dec.Token()
	if err != nil {
		return err
	}
	return k.value(tok, t, "")
}

// keyWalker reads a document's tokens, checking the keys of each object.
type keyWalker struct {
	dec *json.Decoder
	b   []byte
}

// value walks the value that starts with tok, to be decoded into a t
// (nil: a type that gives no guidance).
func (k *keyWalker) value(tok json.Token, t reflect.Type, path string) error {
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	t = guide(t)
	if d == '[' {
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; ; i++ {
			tok, err := k.dec.Token()
			if err != nil {
				return err
			}
			if tok == json.Delim(']') {
				return nil
			}
			if err := k.value(tok, elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	var fields *structFields
	var elem reflect.Type
	switch {
	case t == nil:
	case t.Kind() == reflect.Struct:
		fields = fieldsOf(t)
	case t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	var seen keySet
	for {
		tok, err := k.dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			return nil
		}
		key := tok.(string)
		at := k.dec.InputOffset()
		// A key that names a field is known by the field: "TTFT" and
		// "ttft" fill one.
		id, ft := key, elem
		if fields != nil {
			if f, ok := fields.lookup(key); ok {
				id, ft = "\x00"+f.name, f.typ
			} else {
				ft = nil
			}
		}
		if first, dup := seen.add(id, key); dup {
			return &DuplicateKeyError{Line: k.line(at), Path: path, Key: key, First: first}
		}
		tok, err = k.dec.Token()
		if err != nil {
			return err
		}
		if err := k.value(tok, ft, join(path, key)); err != nil {
			return err
		}
	}
}

// line is the line of the key that ends at offset at, or 0 in a document
// of one line.
func (k *keyWalker) line(at int64) int {
	if bytes.IndexByte(bytes.TrimSpace(k.b), '\n') < 0 {
		return 0
	}
	return bytes.Count(k.b[:min(int(at), len(k.b))], []byte("\n")) + 1
}

// join names key of the object at path.
func join(path, key string) string {
	if !isIdent(key) {
		key = "[" + strconv.Quote(key) + "]"
		return path + key
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// keySet holds the keys of one object read so far: in a slice while they
// are few, as most objects' are, and in a map beyond.
type keySet struct {
	ids, keys []string
	m         map[string]string
}

// add records key under id, and returns the key first recorded under id
// and true if there was one.
func (s *keySet) add(id, key string) (string, bool) {
	if s.m != nil {
		if first, ok := s.m[id]; ok {
			return first, true
		}
		s.m[id] = key
		return "", false
	}
	for i, v := range s.ids {
		if v == id {
			return s.keys[i], true
		}
	}
	s.ids, s.keys = append(s.ids, id), append(s.keys, key)
	if len(s.ids) > 16 {
		s.m = make(map[string]string, 2*len(s.ids))
		for i, v := range s.ids {
			s.m[v] = s.keys[i]
		}
	}
	return "", false
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// guide returns the type whose layout the JSON of a t follows: t without
// its pointers, or nil when t decodes itself (json.RawMessage, a type
// with UnmarshalJSON) or takes anything (an interface), so that its keys
// are compared as written.
func guide(t reflect.Type) reflect.Type {
	for t != nil {
		if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() == reflect.Interface {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			return t
		}
		t = t.Elem()
	}
	return nil
}

// structFields are the JSON fields of a struct type, found as
// encoding/json finds them.
type structFields struct {
	exact map[string]field
	fold  map[string]field // by foldName
}

type field struct {
	name string
	typ  reflect.Type
}

// lookup returns the field that key fills: the one of that exact name,
// or else one whose name differs only in case.
func (s *structFields) lookup(key string) (field, bool) {
	if f, ok := s.exact[key]; ok {
		return f, true
	}
	f, ok := s.fold[foldName(key)]
	return f, ok
}

var fieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	s := &structFields{exact: map[string]field{}, fold: map[string]field{}}
	collect(s, t, 0)
	fieldCache.Store(t, s)
	return s
}

// collect adds the fields of struct type t; those of embedded structs
// come after the outer ones, which hide theirs.
func collect(s *structFields, t reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, ok := s.exact[name]; ok {
			continue
		}
		f := field{name: name, typ: ft}
		s.exact[name] = f
		if _, ok := s.fold[foldName(name)]; !ok {
			s.fold[foldName(name)] = f
		}
	}
	for _, et := range embedded {
		collect(s, et, depth+1)
	}
}

// foldName folds s as encoding/json does to match a key to a field
// regardless of case.
func foldName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}
