package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// raw builds GGUF bytes by hand, so that tests can write what Write never
// would: wrong lengths, unknown types, truncations.
type raw struct{ bytes.Buffer }

func (r *raw) u32(x uint32) *raw { binary.Write(&r.Buffer, binary.LittleEndian, x); return r }
func (r *raw) u64(x uint64) *raw { binary.Write(&r.Buffer, binary.LittleEndian, x); return r }
func (r *raw) str(s string) *raw { r.u64(uint64(len(s))); r.WriteString(s); return r }
func (r *raw) b(x ...byte) *raw  { r.Write(x); return r }

// header starts a little-endian version-3 file with n pairs.
func header(n uint64) *raw {
	r := &raw{}
	r.WriteString("GGUF")
	return r.u32(3).u64(0).u64(n)
}

// everyType is a File holding one value of every type, arrays included.
func everyType() *File {
	f := &File{}
	f.Add("u8", Scalar(uint8(200)))
	f.Add("i8", Scalar(int8(-100)))
	f.Add("u16", Scalar(uint16(60000)))
	f.Add("i16", Scalar(int16(-30000)))
	f.Add("u32", Scalar(uint32(4000000000)))
	f.Add("i32", Scalar(int32(-2000000000)))
	f.Add("f32", Scalar(float32(1.5)))
	f.Add("bool", Scalar(true))
	f.Add("str", Scalar("héllo"))
	f.Add("u64", Scalar(uint64(math.MaxUint64)))
	f.Add("i64", Scalar(int64(math.MinInt64)))
	f.Add("f64", Scalar(-0.25))
	f.Add("empty", ArrayOf([]string{}))
	f.Add("a.u8", ArrayOf([]uint8{0, 255}))
	f.Add("a.i8", ArrayOf([]int8{-1, 1}))
	f.Add("a.u16", ArrayOf([]uint16{1, 65535}))
	f.Add("a.i16", ArrayOf([]int16{-2, 2}))
	f.Add("a.u32", ArrayOf([]uint32{3, 1 << 31}))
	f.Add("a.i32", ArrayOf([]int32{-3, 3}))
	f.Add("a.f32", ArrayOf([]float32{0.5, -2}))
	f.Add("a.bool", ArrayOf([]bool{true, false}))
	f.Add("a.str", ArrayOf([]string{"", "a b", "\xff"}))
	f.Add("a.u64", ArrayOf([]uint64{4, 1 << 63}))
	f.Add("a.i64", ArrayOf([]int64{-4, 4}))
	f.Add("a.f64", ArrayOf([]float64{1e300, 0}))
	f.Add("a.nested", ArrayOf([]Value{ArrayOf([]int32{1}), ArrayOf([]string{"x"})}))
	return f
}

func encode(t testing.TB, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteReadRoundTrip(t *testing.T) {
	want := everyType()
	data := encode(t, want)
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 3 || got.TensorCount != 0 {
		t.Errorf("version %d, tensors %d; want 3, 0", got.Version, got.TensorCount)
	}
	if !reflect.DeepEqual(got.KVs, want.KVs) {
		t.Errorf("round trip changed the pairs:\n got %v\nwant %v", got.KVs, want.KVs)
	}
	// The same bytes come back when written again.
	if again := encode(t, got); !bytes.Equal(again, data) {
		t.Error("writing what was read gives different bytes")
	}
	// A plain io.Reader (no Size method) reads the same file.
	if got2, err := Read(io.MultiReader(bytes.NewReader(data))); err != nil || !reflect.DeepEqual(got2.KVs, want.KVs) {
		t.Errorf("Read without a size: %v", err)
	}
}

func TestReadStopsBeforeTensors(t *testing.T) {
	// One pair, then bytes that are not metadata (a tensor description
	// would follow): Read must not touch them.
	data := header(1).str("general.name").u32(uint32(String)).str("tiny").b(0xde, 0xad).Bytes()
	data = append([]byte(nil), data...)
	data[8] = 1 // one tensor claimed
	r := bytes.NewReader(data)
	f, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	if f.TensorCount != 1 {
		t.Errorf("TensorCount = %d, want 1", f.TensorCount)
	}
	if name, _ := f.String("general.name"); name != "tiny" {
		t.Errorf("general.name = %q, want tiny", name)
	}
}

func TestReadBigEndian(t *testing.T) {
	r := &raw{}
	r.WriteString("GGUF")
	binary.Write(&r.Buffer, binary.BigEndian, uint32(3))
	binary.Write(&r.Buffer, binary.BigEndian, uint64(0))
	binary.Write(&r.Buffer, binary.BigEndian, uint64(1))
	binary.Write(&r.Buffer, binary.BigEndian, uint64(3))
	r.WriteString("key")
	binary.Write(&r.Buffer, binary.BigEndian, uint32(Uint32))
	binary.Write(&r.Buffer, binary.BigEndian, uint32(258))
	f, err := Read(bytes.NewReader(r.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.Uint("key"); err != nil || v != 258 {
		t.Errorf("key = %d, %v; want 258", v, err)
	}
}

func TestReadRejects(t *testing.T) {
	deep := header(1).str("k").u32(uint32(Array))
	for range MaxArrayDepth + 1 {
		deep.u32(uint32(Array)).u64(1)
	}
	pad := make([]byte, 64) // keeps the pair-count check from firing first
	tests := []struct {
		name string
		data []byte
		want string // in the error
	}{
		// Nothing at all is not a GGUF file.
		{"empty", nil, "not a GGUF file"},
		// Another format's magic.
		{"bad magic", []byte("GGML\x03\x00\x00\x00"), "not a GGUF file"},
		// Version 1 used 32-bit lengths and is not read.
		{"version 1", (&raw{Buffer: *bytes.NewBufferString("GGUF")}).u32(1).u64(0).u64(0).Bytes(), "unsupported GGUF version 1"},
		// The header ends inside the pair count.
		{"truncated header", []byte("GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00"), "run past the end"},
		// A pair count no file of this size could hold.
		{"pair count too large", header(1 << 40).Bytes(), "metadata pairs"},
		// A key length past the end of the file.
		{"key past the end", header(1).u64(1000).b(pad...).Bytes(), "run past the end"},
		// A key longer than the specification allows.
		{"key too long", header(1).u64(MaxKeyBytes + 1).b(pad...).Bytes(), "limit"},
		// An unknown value type.
		{"unknown type", header(1).str("k").u32(13).Bytes(), "unknown value type 13"},
		// A bool that is neither 0 nor 1.
		{"bool 2", header(1).str("k").u32(uint32(Bool)).b(2).Bytes(), "not 0 or 1"},
		// The same key twice.
		{"duplicate key", header(2).str("k").u32(uint32(Uint8)).b(1).str("k").u32(uint32(Uint8)).b(2).Bytes(), "appears twice"},
		// An array claiming more elements than bytes remain: refused
		// before any allocation.
		{"array count too large", header(1).str("k").u32(uint32(Array)).u32(uint32(Uint64)).u64(1 << 62).Bytes(), "needs more than"},
		// An array of strings whose fifth element is cut off.
		{"array truncated", header(1).str("k").u32(uint32(Array)).u32(uint32(String)).u64(5).str("a").str("b").str("c").str("d").u64(9).b('x').Bytes(), "element 4"},
		// An array of an unknown element type.
		{"array unknown type", header(1).str("k").u32(uint32(Array)).u32(99).u64(0).Bytes(), "array of unknown type 99"},
		// Arrays of arrays beyond the depth limit.
		{"too deep", deep.Bytes(), "nested deeper"},
		// A string value longer than the string limit.
		{"string too long", header(1).str("k").u32(uint32(String)).u64(MaxStringBytes + 1).Bytes(), "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read: %v, want an error containing %q", err, tt.want)
			}
			// The same input through a reader of unknown size fails too.
			if _, err := Read(io.MultiReader(bytes.NewReader(tt.data))); err == nil {
				t.Fatal("Read without a size accepted it")
			}
		})
	}
}

func TestGetters(t *testing.T) {
	f := everyType()
	if v, err := f.Uint("u8"); err != nil || v != 200 {
		t.Errorf("Uint(u8) = %d, %v", v, err)
	}
	if v, err := f.Uint("u64"); err != nil || v != math.MaxUint64 {
		t.Errorf("Uint(u64) = %d, %v", v, err)
	}
	if _, err := f.Uint("i8"); err == nil || !strings.Contains(err.Error(), "i8: is int8, want a non-negative integer") {
		t.Errorf("Uint of a negative int8: %v", err)
	}
	if v, err := f.Float("f32"); err != nil || v != 1.5 {
		t.Errorf("Float(f32) = %v, %v", v, err)
	}
	if v, err := f.Float("i16"); err != nil || v != -30000 {
		t.Errorf("Float(i16) = %v, %v", v, err)
	}
	if v, err := f.Bool("bool"); err != nil || !v {
		t.Errorf("Bool = %v, %v", v, err)
	}
	if _, err := f.String("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("String(missing) = %v, want ErrNotFound", err)
	}
	if _, err := f.Strings("str"); err == nil || !strings.Contains(err.Error(), "str: is string, want array of string") {
		t.Errorf("Strings of a string: %v", err)
	}
	if v, err := f.Float32s("a.i32"); err != nil || !reflect.DeepEqual(v, []float32{-3, 3}) {
		t.Errorf("Float32s(a.i32) = %v, %v", v, err)
	}
	if v, err := f.Int32s("a.u16"); err != nil || !reflect.DeepEqual(v, []int32{1, 65535}) {
		t.Errorf("Int32s(a.u16) = %v, %v", v, err)
	}
	if _, err := f.Int32s("a.u32"); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("Int32s of 1<<31: %v", err)
	}
	if n := ArrayOf([]string{"a", "b"}).Len(); n != 2 {
		t.Errorf("Len = %d", n)
	}
	// Add replaces a value in place, keeping the order.
	f.Add("u8", Scalar(uint8(7)))
	if f.KVs[0].Key != "u8" || f.KVs[0].Value.Any() != uint8(7) {
		t.Errorf("Add did not replace in place: %v", f.KVs[0])
	}
}

// vocabDir holds llama.cpp's vocabulary-only files, a sibling of the
// repository (see ../shared/realengine/README.md).
func vocabDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "realengine", "vocab")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp vocabularies missing under CI: %v", err)
		}
		t.Skipf("no llama.cpp vocabularies: %v", err)
	}
	return dir
}

func TestOpenLlamaVocab(t *testing.T) {
	f, err := Open(filepath.Join(vocabDir(t), "ggml-vocab-llama-spm.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || len(f.KVs) != 22 {
		t.Errorf("version %d with %d pairs, want 3 and 22", f.Version, len(f.KVs))
	}
	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 32000 || tokens[0] != "<unk>" || tokens[15043] != "▁Hello" {
		t.Errorf("%d tokens, [0] %q, [15043] %q", len(tokens), tokens[0], tokens[15043])
	}
	types, err := f.Int32s("tokenizer.ggml.token_type")
	if err != nil || types[1] != 3 || types[3] != 6 {
		t.Errorf("token types: %v (types[1]=3 control, types[3]=6 byte)", err)
	}
	if model, _ := f.String("tokenizer.ggml.model"); model != "llama" {
		t.Errorf("tokenizer.ggml.model = %q", model)
	}
	if bos, err := f.Uint("tokenizer.ggml.bos_token_id"); err != nil || bos != 1 {
		t.Errorf("bos = %d, %v", bos, err)
	}
}

func TestOpenErrorsNamePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.gguf")
	if err := os.WriteFile(path, []byte("GGUF\x03\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open: %v, want an error naming %s", err, path)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "absent.gguf")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing file: %v", err)
	}
}
