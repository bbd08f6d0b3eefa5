package sweepserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Object is a JSON object that keeps its keys in order, as a Python dict
// does: vLLM's result files and parameter files are read, extended and
// written back with their keys where they were.
type Object []Field

// Field is one key of an Object and its value, as JSON text.
type Field struct {
	Key   string
	Value json.RawMessage
}

// UnmarshalJSON reads a JSON object. A key given twice keeps its first
// place and its last value, as Python's json module does.
func (o *Object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	*o = (*o)[:0]
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.Set(kt.(string), v)
	}
	_, err = dec.Token()
	return err
}

// MarshalJSON writes the object with its keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if len(f.Value) == 0 {
			b.WriteString("null")
		} else {
			b.Write(f.Value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns key's value, and whether the object has it.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Set gives key a value: in its place when the object has it, else at the
// end, as Python's dict.update does.
func (o *Object) Set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, Field{key, v})
}

// Update sets every field of u, in u's order.
func (o *Object) Update(u Object) {
	for _, f := range u {
		o.Set(f.Key, f.Value)
	}
}

// Number returns key's value as a number, and whether it is one.
func (o Object) Number(key string) (float64, bool) {
	v, ok := o.Get(key)
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return 0, false
	}
	var x float64
	if json.Unmarshal(v, &x) != nil {
		return 0, false
	}
	return x, true
}

// writeJSON encodes v indented by four spaces, as Python's json.dump(…,
// indent=4) writes vLLM's files, without escaping <, > and &.
func writeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	return b.Bytes(), nil
}
