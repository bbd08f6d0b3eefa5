package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Write writes f as a little-endian GGUF version 3 file with no tensors:
// the header, then every key/value pair in order. f.TensorCount and
// f.Version are ignored, since no tensor descriptions follow.
func Write(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	e := encoder{w: bw}
	e.raw([]byte(magic))
	e.u32(3)
	e.u64(0)
	e.u64(uint64(len(f.KVs)))
	for _, kv := range f.KVs {
		e.str(kv.Key)
		e.u32(uint32(kv.Value.Type))
		if err := e.value(kv.Value); err != nil {
			return fmt.Errorf("%s: %w", kv.Key, err)
		}
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// encoder writes little-endian values, keeping the first write error.
type encoder struct {
	w   *bufio.Writer
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u32(x uint32) { e.raw(binary.LittleEndian.AppendUint32(e.buf[:0], x)) }
func (e *encoder) u64(x uint64) { e.raw(binary.LittleEndian.AppendUint64(e.buf[:0], x)) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

func (e *encoder) scalar(x any) error {
	switch x := x.(type) {
	case uint8:
		e.raw([]byte{x})
	case int8:
		e.raw([]byte{byte(x)})
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		e.raw([]byte{b})
	case uint16:
		e.raw(binary.LittleEndian.AppendUint16(e.buf[:0], x))
	case int16:
		e.raw(binary.LittleEndian.AppendUint16(e.buf[:0], uint16(x)))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	case string:
		e.str(x)
	default:
		return fmt.Errorf("cannot write a value of Go type %T", x)
	}
	return nil
}

func (e *encoder) value(v Value) error {
	if v.Type != Array {
		return e.scalar(v.v)
	}
	e.u32(uint32(v.Elem))
	e.u64(uint64(v.Len()))
	var err error
	each := func(n int, at func(int) any) {
		for i := 0; i < n && err == nil; i++ {
			err = e.scalar(at(i))
		}
	}
	switch a := v.v.(type) {
	case []Value:
		for _, x := range a {
			if x.Type != Array {
				return fmt.Errorf("array of arrays holds a %s", x.describe())
			}
			if err := e.value(x); err != nil {
				return err
			}
		}
	case []uint8:
		e.raw(a)
	case []int8:
		each(len(a), func(i int) any { return a[i] })
	case []bool:
		each(len(a), func(i int) any { return a[i] })
	case []uint16:
		each(len(a), func(i int) any { return a[i] })
	case []int16:
		each(len(a), func(i int) any { return a[i] })
	case []uint32:
		each(len(a), func(i int) any { return a[i] })
	case []int32:
		each(len(a), func(i int) any { return a[i] })
	case []float32:
		each(len(a), func(i int) any { return a[i] })
	case []uint64:
		each(len(a), func(i int) any { return a[i] })
	case []int64:
		each(len(a), func(i int) any { return a[i] })
	case []float64:
		each(len(a), func(i int) any { return a[i] })
	case []string:
		for _, s := range a {
			e.str(s)
		}
	default:
		return fmt.Errorf("cannot write an array of Go type %T", v.v)
	}
	return err
}
