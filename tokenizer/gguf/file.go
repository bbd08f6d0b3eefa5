package gguf

import (
	"errors"
	"fmt"
)

// ErrNotFound is wrapped by the typed getters when a key is absent, so a
// caller can fall back to a default with errors.Is.
var ErrNotFound = errors.New("key not found")

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// File is the metadata of a GGUF file. Its getters never fail on a
// well-typed value and name the key in every error.
type File struct {
	Version     uint32 // 2 or 3
	TensorCount uint64 // tensors described after the metadata (not read)
	KVs         []KV   // in file order

	index map[string]int // key → position in KVs
}

// Add appends a key/value pair, replacing the value of an existing key in
// place. It is how tests and tools build a File to Write.
func (f *File) Add(key string, v Value) {
	if f.index == nil {
		f.index = make(map[string]int, len(f.KVs))
		for i, kv := range f.KVs {
			f.index[kv.Key] = i
		}
	}
	if i, ok := f.index[key]; ok {
		f.KVs[i].Value = v
		return
	}
	f.index[key] = len(f.KVs)
	f.KVs = append(f.KVs, KV{key, v})
}

// Get returns the value of key.
func (f *File) Get(key string) (Value, bool) {
	if f.index == nil {
		for _, kv := range f.KVs {
			if kv.Key == key {
				return kv.Value, true
			}
		}
		return Value{}, false
	}
	i, ok := f.index[key]
	if !ok {
		return Value{}, false
	}
	return f.KVs[i].Value, true
}

func (f *File) lookup(key string) (Value, error) {
	v, ok := f.Get(key)
	if !ok {
		return Value{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return v, nil
}

func wrongType(key string, v Value, want string) error {
	return fmt.Errorf("%s: is %s, want %s", key, v.describe(), want)
}

// String returns the string value of key.
func (f *File) String(key string) (string, error) {
	v, err := f.lookup(key)
	if err != nil {
		return "", err
	}
	s, ok := v.v.(string)
	if !ok {
		return "", wrongType(key, v, "string")
	}
	return s, nil
}

// Uint returns the value of key, which may be an integer of any width and
// signedness but must not be negative.
func (f *File) Uint(key string) (uint64, error) {
	v, err := f.lookup(key)
	if err != nil {
		return 0, err
	}
	u, ok := v.asUint()
	if !ok {
		return 0, wrongType(key, v, "a non-negative integer")
	}
	return u, nil
}

// Float returns the value of key, which may be of any numeric type.
func (f *File) Float(key string) (float64, error) {
	v, err := f.lookup(key)
	if err != nil {
		return 0, err
	}
	x, ok := v.asFloat()
	if !ok {
		return 0, wrongType(key, v, "a number")
	}
	return x, nil
}

// Bool returns the boolean value of key.
func (f *File) Bool(key string) (bool, error) {
	v, err := f.lookup(key)
	if err != nil {
		return false, err
	}
	b, ok := v.v.(bool)
	if !ok {
		return false, wrongType(key, v, "bool")
	}
	return b, nil
}

// Strings returns the array of strings of key. The slice is the File's own;
// callers must not modify it.
func (f *File) Strings(key string) ([]string, error) {
	v, err := f.lookup(key)
	if err != nil {
		return nil, err
	}
	s, ok := v.v.([]string)
	if !ok {
		return nil, wrongType(key, v, "array of string")
	}
	return s, nil
}

// Float32s returns the numeric array of key as float32s; float32 arrays are
// returned as stored (callers must not modify them), int32 arrays (which
// some converters write for scores) are converted.
func (f *File) Float32s(key string) ([]float32, error) {
	v, err := f.lookup(key)
	if err != nil {
		return nil, err
	}
	switch a := v.v.(type) {
	case []float32:
		return a, nil
	case []int32:
		out := make([]float32, len(a))
		for i, x := range a {
			out[i] = float32(x)
		}
		return out, nil
	}
	return nil, wrongType(key, v, "array of float32")
}

// Int32s returns the integer array of key as int32s; int32 arrays are
// returned as stored (callers must not modify them), arrays of other
// integer widths are converted when every element fits.
func (f *File) Int32s(key string) ([]int32, error) {
	v, err := f.lookup(key)
	if err != nil {
		return nil, err
	}
	if a, ok := v.v.([]int32); ok {
		return a, nil
	}
	if v.Type != Array {
		return nil, wrongType(key, v, "array of int32")
	}
	out := make([]int32, 0, v.Len())
	fits := true
	each := func(x int64) {
		if x < -1<<31 || x >= 1<<31 {
			fits = false
		}
		out = append(out, int32(x))
	}
	switch a := v.v.(type) {
	case []uint8:
		for _, x := range a {
			each(int64(x))
		}
	case []int8:
		for _, x := range a {
			each(int64(x))
		}
	case []uint16:
		for _, x := range a {
			each(int64(x))
		}
	case []int16:
		for _, x := range a {
			each(int64(x))
		}
	case []uint32:
		for _, x := range a {
			each(int64(x))
		}
	case []int64:
		for _, x := range a {
			each(x)
		}
	case []uint64:
		for _, x := range a {
			if x >= 1<<63 {
				fits = false
			}
			each(int64(x))
		}
	default:
		return nil, wrongType(key, v, "array of int32")
	}
	if !fits {
		return nil, fmt.Errorf("%s: an element does not fit in int32", key)
	}
	return out, nil
}
