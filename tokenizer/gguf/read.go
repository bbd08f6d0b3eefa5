package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Limits of the reader. Real files stay far below them: the metadata of a
// model with a 256,000-token vocabulary is about 10 MB.
const (
	MaxMetadataBytes = 256 << 20 // the header and key/value pairs together
	MaxStringBytes   = 16 << 20  // one string: a key, a token, a chat template
	MaxKeyBytes      = 65535     // the specification's bound on a key
	MaxArrayDepth    = 8         // arrays of arrays of …
)

const magic = "GGUF"

// ErrNotGGUF is returned when the input does not start with the GGUF magic.
var ErrNotGGUF = errors.New("not a GGUF file (no GGUF magic)")

// Open reads the metadata of the GGUF file at path. Errors name the path.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	size := int64(-1)
	if st, err := fh.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	f, err := read(fh, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read reads GGUF metadata from r, which must be positioned at the start of
// the file; it reads up to the first tensor description and no further. When
// r has a Size method (bytes.Reader, strings.Reader, io.SectionReader),
// lengths are also checked against it.
func Read(r io.Reader) (*File, error) {
	size := int64(-1)
	if s, ok := r.(interface{ Size() int64 }); ok {
		size = s.Size()
	}
	return read(r, size)
}

// decoder reads one file's metadata; off counts the bytes consumed.
type decoder struct {
	r     *bufio.Reader
	order binary.ByteOrder
	off   int64
	limit int64 // off may not pass it: the file size or MaxMetadataBytes
	buf   [8]byte
}

func read(r io.Reader, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 64<<10), order: binary.LittleEndian, limit: MaxMetadataBytes}
	if size >= 0 && size < d.limit {
		d.limit = size
	}
	head, err := d.bytes(4)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ErrNotGGUF
		}
		return nil, err
	}
	if string(head) != magic {
		return nil, ErrNotGGUF
	}
	version, err := d.u32()
	if err != nil {
		return nil, err
	}
	// A big-endian file stores its version (2 or 3) byte-swapped.
	if version&0xFFFF == 0 && version != 0 {
		d.order = binary.BigEndian
		version = d.order.Uint32(binary.LittleEndian.AppendUint32(nil, version))
	}
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("unsupported GGUF version %d (want 2 or 3)", version)
	}
	tensors, err := d.u64()
	if err != nil {
		return nil, err
	}
	n, err := d.u64()
	if err != nil {
		return nil, err
	}
	// A pair takes at least 13 bytes: an 8-byte key length, a 4-byte type
	// and a 1-byte value.
	if rem := d.limit - d.off; n > uint64(rem)/13 {
		return nil, fmt.Errorf("header claims %d metadata pairs, more than %d bytes can hold", n, rem)
	}
	f := &File{Version: version, TensorCount: tensors, KVs: make([]KV, 0, min(n, 1<<12)), index: make(map[string]int, min(n, 1<<12))}
	for range n {
		at := d.off
		key, err := d.str(MaxKeyBytes)
		if err != nil {
			return nil, fmt.Errorf("metadata key at byte %d: %w", at, err)
		}
		if _, dup := f.index[key]; dup {
			return nil, fmt.Errorf("metadata key %q at byte %d appears twice", key, at)
		}
		t, err := d.u32()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		v, err := d.value(Type(t), 0)
		if err != nil {
			return nil, fmt.Errorf("%s (at byte %d): %w", key, at, err)
		}
		f.index[key] = len(f.KVs)
		f.KVs = append(f.KVs, KV{key, v})
	}
	return f, nil
}

// bytes reads exactly n bytes, failing before allocating when n exceeds
// what the limit allows.
func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(d.limit-d.off) {
		if d.limit == MaxMetadataBytes {
			return nil, fmt.Errorf("%d bytes at byte %d pass the %d-byte metadata limit", n, d.off, MaxMetadataBytes)
		}
		return nil, fmt.Errorf("%d bytes at byte %d run past the end of the file (%d bytes): %w", n, d.off, d.limit, io.ErrUnexpectedEOF)
	}
	var b []byte
	if n <= uint64(len(d.buf)) {
		b = d.buf[:n]
	} else {
		b = make([]byte, n)
	}
	k, err := io.ReadFull(d.r, b)
	d.off += int64(k)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d bytes at byte %d: %w", n, d.off-int64(k), err)
	}
	return b, nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.bytes(4)
	if err != nil {
		return 0, err
	}
	return d.order.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.bytes(8)
	if err != nil {
		return 0, err
	}
	return d.order.Uint64(b), nil
}

// str reads a length-prefixed string of at most max bytes.
func (d *decoder) str(max uint64) (string, error) {
	n, err := d.u64()
	if err != nil {
		return "", err
	}
	if n > max {
		return "", fmt.Errorf("string of %d bytes at byte %d is longer than the %d-byte limit", n, d.off-8, max)
	}
	b, err := d.bytes(n)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// scalar reads one value of a fixed-size type.
func (d *decoder) scalar(t Type) (any, error) {
	b, err := d.bytes(uint64(t.size()))
	if err != nil {
		return nil, err
	}
	switch t {
	case Uint8:
		return b[0], nil
	case Int8:
		return int8(b[0]), nil
	case Bool:
		if b[0] > 1 {
			return nil, fmt.Errorf("bool at byte %d is %d, not 0 or 1", d.off-1, b[0])
		}
		return b[0] == 1, nil
	case Uint16:
		return d.order.Uint16(b), nil
	case Int16:
		return int16(d.order.Uint16(b)), nil
	case Uint32:
		return d.order.Uint32(b), nil
	case Int32:
		return int32(d.order.Uint32(b)), nil
	case Float32:
		return math.Float32frombits(d.order.Uint32(b)), nil
	case Uint64:
		return d.order.Uint64(b), nil
	case Int64:
		return int64(d.order.Uint64(b)), nil
	case Float64:
		return math.Float64frombits(d.order.Uint64(b)), nil
	}
	return nil, fmt.Errorf("unknown value type %d", uint32(t))
}

func (d *decoder) value(t Type, depth int) (Value, error) {
	switch t {
	case String:
		s, err := d.str(MaxStringBytes)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: String, v: s}, nil
	case Array:
		return d.array(depth)
	}
	if t >= numTypes {
		return Value{}, fmt.Errorf("unknown value type %d at byte %d", uint32(t), d.off-4)
	}
	x, err := d.scalar(t)
	if err != nil {
		return Value{}, err
	}
	return Value{Type: t, v: x}, nil
}

func (d *decoder) array(depth int) (Value, error) {
	if depth >= MaxArrayDepth {
		return Value{}, fmt.Errorf("arrays nested deeper than %d at byte %d", MaxArrayDepth, d.off)
	}
	et, err := d.u32()
	if err != nil {
		return Value{}, err
	}
	elem := Type(et)
	if elem >= numTypes {
		return Value{}, fmt.Errorf("array of unknown type %d at byte %d", et, d.off-4)
	}
	n, err := d.u64()
	if err != nil {
		return Value{}, err
	}
	// Each element takes at least one byte (strings 8, arrays 12), so the
	// count is checked against the bytes left before anything is allocated;
	// slices then grow with the bytes actually read.
	minSize := uint64(elem.size())
	switch elem {
	case String:
		minSize = 8
	case Array:
		minSize = 12
	}
	if rem := uint64(d.limit - d.off); n > rem/minSize {
		return Value{}, fmt.Errorf("array of %d %s elements at byte %d needs more than the %d bytes left", n, elem, d.off-12, rem)
	}
	c := min(n, 1<<16)
	at := func(i uint64, err error) error {
		return fmt.Errorf("element %d: %w", i, err)
	}
	switch elem {
	case String:
		out := make([]string, 0, c)
		for i := range n {
			s, err := d.str(MaxStringBytes)
			if err != nil {
				return Value{}, at(i, err)
			}
			out = append(out, s)
		}
		return ArrayOf(out), nil
	case Array:
		out := make([]Value, 0, c)
		for i := range n {
			v, err := d.array(depth + 1)
			if err != nil {
				return Value{}, at(i, err)
			}
			out = append(out, v)
		}
		return ArrayOf(out), nil
	}
	return d.scalars(elem, n, c)
}

// scalars reads n fixed-size elements into a typed slice of capacity c.
func (d *decoder) scalars(elem Type, n, c uint64) (Value, error) {
	o := d.order
	var (
		v   any
		err error
	)
	switch elem {
	case Uint8:
		v, err = elements(d, n, c, 1, func(b []byte) (uint8, error) { return b[0], nil })
	case Int8:
		v, err = elements(d, n, c, 1, func(b []byte) (int8, error) { return int8(b[0]), nil })
	case Bool:
		v, err = elements(d, n, c, 1, func(b []byte) (bool, error) {
			if b[0] > 1 {
				return false, fmt.Errorf("bool is %d, not 0 or 1", b[0])
			}
			return b[0] == 1, nil
		})
	case Uint16:
		v, err = elements(d, n, c, 2, func(b []byte) (uint16, error) { return o.Uint16(b), nil })
	case Int16:
		v, err = elements(d, n, c, 2, func(b []byte) (int16, error) { return int16(o.Uint16(b)), nil })
	case Uint32:
		v, err = elements(d, n, c, 4, func(b []byte) (uint32, error) { return o.Uint32(b), nil })
	case Int32:
		v, err = elements(d, n, c, 4, func(b []byte) (int32, error) { return int32(o.Uint32(b)), nil })
	case Float32:
		v, err = elements(d, n, c, 4, func(b []byte) (float32, error) { return math.Float32frombits(o.Uint32(b)), nil })
	case Uint64:
		v, err = elements(d, n, c, 8, func(b []byte) (uint64, error) { return o.Uint64(b), nil })
	case Int64:
		v, err = elements(d, n, c, 8, func(b []byte) (int64, error) { return int64(o.Uint64(b)), nil })
	case Float64:
		v, err = elements(d, n, c, 8, func(b []byte) (float64, error) { return math.Float64frombits(o.Uint64(b)), nil })
	default:
		return Value{}, fmt.Errorf("array of unknown type %d", uint32(elem))
	}
	if err != nil {
		return Value{}, err
	}
	return ArrayOf(v), nil
}

// elements reads n elements of size bytes each, decoding each with conv.
func elements[T any](d *decoder, n, c uint64, size uint64, conv func([]byte) (T, error)) ([]T, error) {
	out := make([]T, 0, c)
	for i := range n {
		b, err := d.bytes(size)
		if err == nil {
			var x T
			if x, err = conv(b); err == nil {
				out = append(out, x)
				continue
			}
		}
		return nil, fmt.Errorf("element %d: %w", i, err)
	}
	return out, nil
}
