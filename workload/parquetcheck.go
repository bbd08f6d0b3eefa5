package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The Parquet library trusts the sizes a file states: it allocates a
// footer, a page, a string or a list of the length it reads before it
// finds out whether the file holds that many bytes, so a few lying bytes
// cost gigabytes and, past the machine's memory, a crash that no recover
// can catch. The checks here read what the library would read and refuse
// a claim the bytes cannot back before the library sees it.

// Bounds on what the pages of a dataset file may claim. Compressed text
// can expand by thousands (a column of one repeated prompt), so a page's
// claims are bounded in absolute terms and the file's in all, not by
// ratios; common writers keep pages near a megabyte.
const (
	maxThriftDepth      = 32        // nesting of Parquet's metadata is under 10
	maxPageBytes        = 128 << 20 // uncompressed bytes of one page
	maxPageValues       = 1 << 24   // values of one page (nulls cost no bytes)
	bytesPerValue       = 4         // what the library allocates per value it is told of
	pageBudgetFloor     = 1 << 30   // of all pages' claims, for any file
	pageBudgetPerByte   = 1024      // and more for each byte of the file
	maxPageHeaderWindow = 1 << 24   // the most read to find one page header
)

// checkParquetFrame returns an error unless r, of the given size, is framed
// as a plaintext Parquet file, "PAR1" at both ends and a footer length that
// fits between them, and its footer's encoding claims no more than the
// footer holds.
func checkParquetFrame(r io.ReaderAt, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes, shorter than the 12 of an empty Parquet frame", size)
	}
	var head [4]byte
	var end [8]byte // the footer's length, then the magic
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(end[:], size-8); err != nil {
		return err
	}
	if string(head[:]) != magic || string(end[4:]) != magic {
		return fmt.Errorf("want %q at the start and the end, have %q and %q", magic, head[:], end[4:])
	}
	n := int64(binary.LittleEndian.Uint32(end[:4]))
	if n > size-12 {
		return fmt.Errorf("its footer claims %d bytes, more than the file's %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if _, err := thriftStruct(footer, 0); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// checkParquetPages walks the page headers of every column chunk the
// footer describes and returns an error for a chunk outside the file, a
// page larger than what remains of its chunk, or pages whose stated
// uncompressed sizes and value counts exceed the bounds above.
func checkParquetPages(r io.ReaderAt, size int64, md *format.FileMetaData) error {
	budget := pageBudget{left: pageBudgetFloor + pageBudgetPerByte*size}
	budget.all = budget.left
	for g, rg := range md.RowGroups {
		for c, cc := range rg.Columns {
			m := cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if start < 4 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > size-start {
				return fmt.Errorf("row group %d, column %d: a chunk of %d bytes at offset %d does not fit a file of %d bytes",
					g, c, m.TotalCompressedSize, start, size)
			}
			if err := checkChunkPages(r, start, start+m.TotalCompressedSize, &budget); err != nil {
				return fmt.Errorf("row group %d, column %d: %w", g, c, err)
			}
		}
	}
	return nil
}

// pageBudget is what the pages of one file may still claim, in bytes the
// library would allocate for them.
type pageBudget struct{ all, left int64 }

// checkChunkPages walks the pages of the column chunk that fills the file
// from offset start to end.
func checkChunkPages(r io.ReaderAt, start, end int64, budget *pageBudget) error {
	var window []byte
	for pos := start; pos < end; {
		rest := end - pos
		var n int
		var err error
		// A page header is small; read a little and more only if it did
		// not fit.
		for w := min(rest, 1<<12); ; w = min(rest, w*16, maxPageHeaderWindow) {
			if int64(cap(window)) < w {
				window = make([]byte, w)
			}
			window = window[:w]
			if _, err := r.ReadAt(window, pos); err != nil {
				return fmt.Errorf("page header at offset %d: %w", pos, err)
			}
			n, err = thriftStruct(window, 0)
			if !errors.Is(err, io.ErrUnexpectedEOF) || w == rest || w == maxPageHeaderWindow {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("page header at offset %d: %w", pos, err)
		}
		var h format.PageHeader
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), window[:n], &h); err != nil {
			return fmt.Errorf("page header at offset %d: %w", pos, err)
		}
		if err := checkPage(&h, rest-int64(n), budget); err != nil {
			return fmt.Errorf("page at offset %d: %w", pos, err)
		}
		pos += int64(n) + int64(h.CompressedPageSize)
	}
	return nil
}

// checkPage returns an error unless page header h fits in the rest bytes
// of its chunk that follow it, states no more than one page may, and
// leaves the file's budget above zero; it spends the budget.
func checkPage(h *format.PageHeader, rest int64, budget *pageBudget) error {
	compressed, uncompressed := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if compressed < 0 || compressed > rest {
		return fmt.Errorf("claims %d bytes, %d remain in its column chunk", compressed, rest)
	}
	if uncompressed < 0 || uncompressed > maxPageBytes {
		return fmt.Errorf("claims %d uncompressed bytes, more than the %d a page may", uncompressed, maxPageBytes)
	}
	values := int64(0)
	switch {
	case h.DataPageHeader.Valid:
		values = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		values = int64(h.DataPageHeaderV2.V.NumValues)
	case h.DictionaryPageHeader.Valid:
		values = int64(h.DictionaryPageHeader.V.NumValues)
	}
	if values < 0 || values > maxPageValues {
		return fmt.Errorf("claims %d values, more than the %d a page may", values, maxPageValues)
	}
	budget.left -= uncompressed + bytesPerValue*values
	if budget.left < 0 {
		return fmt.Errorf("the file's pages claim more than %d bytes in all", budget.all)
	}
	return nil
}

// Thrift compact protocol types, as the low nibble of a field header or
// the element type of a list.
const (
	compactTrue   = 1
	compactFalse  = 2
	compactByte   = 3
	compactI16    = 4
	compactI32    = 5
	compactI64    = 6
	compactDouble = 7
	compactBinary = 8
	compactList   = 9
	compactSet    = 10
	compactMap    = 11
	compactStruct = 12
	compactUUID   = 13
)

var errThriftDepth = fmt.Errorf("nested deeper than %d", maxThriftDepth)

// thriftStruct walks one compact-protocol struct at the start of b without
// decoding it and returns its length in bytes: an error if it is nested
// too deep, has a field of an unknown type, or states a string, list or
// map longer than the bytes that follow (io.ErrUnexpectedEOF when b ends
// inside it).
func thriftStruct(b []byte, depth int) (int, error) {
	if depth > maxThriftDepth {
		return 0, errThriftDepth
	}
	n := 0
	for {
		if n >= len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		h := b[n]
		n++
		if h == 0 { // stop
			return n, nil
		}
		if h>>4 == 0 { // the field id follows as a varint
			k, err := thriftVarint(b[n:])
			if err != nil {
				return 0, err
			}
			n += k
		}
		switch t := h & 0x0f; t {
		case compactTrue, compactFalse: // the value is the type
		default:
			k, err := thriftValue(b[n:], t, depth)
			if err != nil {
				return 0, err
			}
			n += k
		}
	}
}

// thriftValue walks one value of type t at the start of b and returns its
// length in bytes. Booleans take a byte here, as they do in a list.
func thriftValue(b []byte, t byte, depth int) (int, error) {
	switch t {
	case compactTrue, compactFalse, compactByte:
		if len(b) < 1 {
			return 0, io.ErrUnexpectedEOF
		}
		return 1, nil
	case compactI16, compactI32, compactI64:
		return thriftVarint(b)
	case compactDouble:
		return thriftFixed(b, 8)
	case compactUUID:
		return thriftFixed(b, 16)
	case compactBinary:
		return thriftSized(b, 1, thriftFixed)
	case compactStruct:
		return thriftStruct(b, depth+1)
	case compactList, compactSet:
		if len(b) < 1 {
			return 0, io.ErrUnexpectedEOF
		}
		elem, size, n := b[0]&0x0f, uint64(b[0]>>4), 1
		if size == 0x0f {
			k, err := thriftVarint(b[1:])
			if err != nil {
				return 0, err
			}
			size, n = thriftUvarint(b[1:]), 1+k
		}
		return thriftElems(b, n, size, depth, elem)
	case compactMap:
		return thriftSized(b, 2, func(b []byte, size uint64) (int, error) {
			if size == 0 {
				return 0, nil
			}
			if len(b) < 1 {
				return 0, io.ErrUnexpectedEOF
			}
			kt, vt := b[0]>>4, b[0]&0x0f
			n := 1
			for range size {
				for _, t := range [2]byte{kt, vt} {
					k, err := thriftValue(b[n:], t, depth+1)
					if err != nil {
						return 0, err
					}
					n += k
				}
			}
			return n, nil
		})
	}
	return 0, fmt.Errorf("unknown thrift type %d", t)
}

// thriftElems walks size elements of type elem that start n bytes into b
// and returns the length of the whole list.
func thriftElems(b []byte, n int, size uint64, depth int, elem byte) (int, error) {
	if size > uint64(len(b)-n) {
		return 0, fmt.Errorf("a list of %d items in %d bytes: %w", size, len(b)-n, io.ErrUnexpectedEOF)
	}
	for range size {
		k, err := thriftValue(b[n:], elem, depth+1)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// thriftSized reads the varint length at the start of b, refuses one that
// the rest of b cannot hold at per bytes an item (as io.ErrUnexpectedEOF:
// a caller that read only part of the data may read more), and walks the
// rest with body.
func thriftSized(b []byte, per uint64, body func(b []byte, size uint64) (int, error)) (int, error) {
	k, err := thriftVarint(b)
	if err != nil {
		return 0, err
	}
	size := thriftUvarint(b)
	if rest := uint64(len(b) - k); size > rest/per {
		return 0, fmt.Errorf("a length of %d with %d bytes left: %w", size, rest, io.ErrUnexpectedEOF)
	}
	m, err := body(b[k:], size)
	return k + m, err
}

// thriftFixed is the n bytes at the start of b.
func thriftFixed(b []byte, n uint64) (int, error) {
	if uint64(len(b)) < n {
		return 0, io.ErrUnexpectedEOF
	}
	return int(n), nil
}

// thriftVarint is the length of the varint at the start of b.
func thriftVarint(b []byte) (int, error) {
	_, k := binary.Uvarint(b)
	switch {
	case k == 0:
		return 0, io.ErrUnexpectedEOF
	case k < 0:
		return 0, errors.New("a varint longer than 64 bits")
	}
	return k, nil
}

// thriftUvarint is the value of the varint at the start of b, which
// thriftVarint has accepted.
func thriftUvarint(b []byte) uint64 {
	v, _ := binary.Uvarint(b)
	return v
}
