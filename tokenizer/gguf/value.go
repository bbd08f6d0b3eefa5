package gguf

import (
	"fmt"
	"math"
)

// Type is the type code of a metadata value, as stored in the file.
type Type uint32

// The value types of GGUF version 2 and 3.
const (
	Uint8 Type = iota
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Float32
	Bool
	String
	Array
	Uint64
	Int64
	Float64
	numTypes
)

var typeNames = [numTypes]string{
	"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
	"bool", "string", "array", "uint64", "int64", "float64",
}

func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size is the encoded size of a scalar of type t; 0 for strings and arrays,
// whose size depends on their content.
func (t Type) size() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Uint64, Int64, Float64:
		return 8
	}
	return 0
}

// Value is one metadata value. Scalars hold the Go type of the same name
// (uint8 … float64, bool, string); an Array holds a slice of its element's
// Go type ([]uint8 … []string, []bool), or []Value for nested arrays.
type Value struct {
	Type Type
	Elem Type // element type when Type is Array
	v    any
}

// Scalar returns a Value of a scalar Go value: uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64 or float64. It panics
// on any other type, which is a programming error.
func Scalar(x any) Value {
	switch x.(type) {
	case uint8:
		return Value{Type: Uint8, v: x}
	case int8:
		return Value{Type: Int8, v: x}
	case uint16:
		return Value{Type: Uint16, v: x}
	case int16:
		return Value{Type: Int16, v: x}
	case uint32:
		return Value{Type: Uint32, v: x}
	case int32:
		return Value{Type: Int32, v: x}
	case float32:
		return Value{Type: Float32, v: x}
	case bool:
		return Value{Type: Bool, v: x}
	case string:
		return Value{Type: String, v: x}
	case uint64:
		return Value{Type: Uint64, v: x}
	case int64:
		return Value{Type: Int64, v: x}
	case float64:
		return Value{Type: Float64, v: x}
	}
	panic(fmt.Sprintf("gguf.Scalar: unsupported type %T", x))
}

// ArrayOf returns an array Value of a slice: []uint8 … []float64, []bool,
// []string, or []Value for an array of arrays. It panics on any other type.
func ArrayOf(x any) Value {
	var elem Type
	switch x.(type) {
	case []uint8:
		elem = Uint8
	case []int8:
		elem = Int8
	case []uint16:
		elem = Uint16
	case []int16:
		elem = Int16
	case []uint32:
		elem = Uint32
	case []int32:
		elem = Int32
	case []float32:
		elem = Float32
	case []bool:
		elem = Bool
	case []string:
		elem = String
	case []uint64:
		elem = Uint64
	case []int64:
		elem = Int64
	case []float64:
		elem = Float64
	case []Value:
		elem = Array
	default:
		panic(fmt.Sprintf("gguf.ArrayOf: unsupported type %T", x))
	}
	return Value{Type: Array, Elem: elem, v: x}
}

// Any returns the value as its Go type (see Value).
func (v Value) Any() any { return v.v }

// Len is the number of elements of an array, 0 for a scalar.
func (v Value) Len() int {
	if v.Type != Array {
		return 0
	}
	switch a := v.v.(type) {
	case []uint8:
		return len(a)
	case []int8:
		return len(a)
	case []uint16:
		return len(a)
	case []int16:
		return len(a)
	case []uint32:
		return len(a)
	case []int32:
		return len(a)
	case []float32:
		return len(a)
	case []bool:
		return len(a)
	case []string:
		return len(a)
	case []uint64:
		return len(a)
	case []int64:
		return len(a)
	case []float64:
		return len(a)
	case []Value:
		return len(a)
	}
	return 0
}

// describe names the value's type for error messages: "uint32",
// "array of string".
func (v Value) describe() string {
	if v.Type == Array {
		return "array of " + v.Elem.String()
	}
	return v.Type.String()
}

// asUint returns an integer value of any width as a uint64; ok is false for
// negative values and for other types.
func (v Value) asUint() (uint64, bool) {
	switch x := v.v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	}
	return 0, false
}

// asFloat returns a numeric value as a float64.
func (v Value) asFloat() (float64, bool) {
	switch x := v.v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	if u, ok := v.asUint(); ok {
		return float64(u), true
	}
	switch x := v.v.(type) {
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return math.NaN(), false
}
