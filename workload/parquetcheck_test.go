package workload

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func TestThriftStructWalksWithoutTrustingLengths(t *testing.T) {
	nested := bytes.Repeat([]byte{0x1c}, maxThriftDepth+2) // field 1, a struct, again and again
	tests := []struct {
		name string
		b    []byte
		n    int    // the struct's length, when it is whole
		err  string // else the error, or "EOF" for io.ErrUnexpectedEOF alone
	}{
		{"an empty struct is its stop byte", []byte{0x00, 0xff}, 1, ""},
		{"an i32 field, then the stop", []byte{0x15, 0x02, 0x00}, 3, ""},
		{"a field id given as a varint", []byte{0x05, 0x0a, 0x02, 0x00}, 4, ""},
		{"booleans carry their value in the type", []byte{0x11, 0x12, 0x00}, 3, ""},
		{"a string of three bytes", []byte{0x18, 0x03, 'a', 'b', 'c', 0x00}, 6, ""},
		{"a list of two i32", []byte{0x19, 0x25, 0x02, 0x04, 0x00}, 5, ""},
		{"a list of two structs", []byte{0x19, 0x2c, 0x00, 0x00, 0x00}, 5, ""},
		{"a map of one string to i32", []byte{0x1b, 0x01, 0x85, 0x01, 'k', 0x02, 0x00}, 7, ""},
		{"a double", []byte{0x17, 1, 2, 3, 4, 5, 6, 7, 8, 0x00}, 10, ""},

		{"a string claiming 2 GiB in 2 bytes", []byte{0x18, 0xff, 0xff, 0xff, 0xff, 0x07, 'a', 0x00}, 0, "a length of 2147483647 with 2 bytes left"},
		{"a list claiming 2^31-1 items", []byte{0x19, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00}, 0, "a list of 2147483647 items in 1 bytes"},
		{"a map claiming a billion entries", []byte{0x1b, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0x55, 0x00}, 0, "a length of 1000000000 with 2 bytes left"},
		{"structs nested past the limit", append(nested, make([]byte, len(nested)+1)...), 0, "nested deeper than 32"},
		{"a type thrift does not have", []byte{0x1e, 0x00}, 0, "unknown thrift type 14"},
		{"a varint of eleven bytes", append([]byte{0x15}, bytes.Repeat([]byte{0xff}, 11)...), 0, "longer than 64 bits"},
		{"no stop byte", []byte{0x15, 0x02}, 0, "EOF"},
		{"nothing at all", nil, 0, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := thriftStruct(tt.b, 0)
			switch {
			case tt.err == "" && (err != nil || n != tt.n):
				t.Fatalf("thriftStruct = %d, %v; want %d", n, err, tt.n)
			case tt.err == "EOF" && err != io.ErrUnexpectedEOF:
				t.Fatalf("thriftStruct = %d, %v; want io.ErrUnexpectedEOF", n, err)
			case tt.err != "" && tt.err != "EOF" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("thriftStruct = %d, %v; want an error with %q", n, err, tt.err)
			}
		})
	}
}

// TestAWalkedStructDecodesAsTheLibraryDoes checks the walk against the
// library on a real footer: the same length, and a file's footer passes.
func TestAWalkedStructDecodesAsTheLibraryDoes(t *testing.T) {
	data := parquetPrompts(t, 3)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), f.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := thriftStruct(footer, 0); err != nil || n != len(footer) {
		t.Fatalf("thriftStruct(footer) = %d, %v; want %d", n, err, len(footer))
	}
	if err := checkParquetFrame(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("checkParquetFrame of a written file: %v", err)
	}
	if err := checkParquetPages(bytes.NewReader(data), int64(len(data)), f.Metadata()); err != nil {
		t.Fatalf("checkParquetPages of a written file: %v", err)
	}
}

// TestAParquetFileThatLiesIsRefusedCheaply rewrites the first page header
// of a real file to claim what its bytes do not hold: the reader names the
// claim, and allocates next to nothing for it, where the library alone
// would have allocated what the header claims.
func TestAParquetFileThatLiesIsRefusedCheaply(t *testing.T) {
	tests := []struct {
		name string
		lie  func(h *format.PageHeader)
		want string
	}{
		{"a page larger than its chunk", func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 }, "claims 1073741824 bytes"},
		{"an uncompressed size no page expands to", func(h *format.PageHeader) { h.UncompressedPageSize = 1 << 30 }, "claims 1073741824 uncompressed bytes, more than the 134217728"},
		{"more values than its bytes can hold", func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = 1 << 30 }, "claims 1073741824 values, more than the 16777216"},
	}
	t.Run("the same rewrite without a lie reads every row", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "rows.parquet")
		if err := os.WriteFile(path, lyingPage(t, parquetPrompts(t, 50), func(*format.PageHeader) {}), 0o644); err != nil {
			t.Fatal(err)
		}
		rows := 0
		if err := readParquetRows(path, func(r map[string]any) {
			if strings.HasPrefix(r["prompt"].(string), "How far") {
				rows++
			}
		}); err != nil || rows != 50 {
			t.Fatalf("readParquetRows = %d rows, %v; want 50, nil", rows, err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rows.parquet")
			if err := os.WriteFile(path, lyingPage(t, parquetPrompts(t, 50), tt.lie), 0o644); err != nil {
				t.Fatal(err)
			}
			before := totalAlloc()
			err := readParquetRows(path, func(map[string]any) {})
			if got := totalAlloc() - before; got > 16<<20 {
				t.Errorf("refusing the file allocated %d MiB", got>>20)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("readParquetRows = %v; want an error naming %s with %q", err, path, tt.want)
			}
		})
	}
}

func TestAParquetFrameThatLiesIsRefused(t *testing.T) {
	good := parquetPrompts(t, 2)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"shorter than a frame", []byte("PAR1PAR1"), "shorter than the 12"},
		{"a footer longer than the file", []byte("PAR1\xff\xff\xff\xffPAR1"), "its footer claims 4294967295 bytes"},
		{"no magic at the end", append(append([]byte{}, good[:len(good)-4]...), "PARX"...), `have "PAR1" and "PARX"`},
		{"a footer whose list lies", append([]byte("PAR1\x19\xf5\xff\xff\xff\xff\x07\x00"), "\x08\x00\x00\x00PAR1"...), "footer: a list of 2147483647 items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkParquetFrame(bytes.NewReader(tt.data), int64(len(tt.data)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("checkParquetFrame = %v; want an error with %q", err, tt.want)
			}
		})
	}
}

// parquetPrompts is an uncompressed Parquet file of n rows with a prompt
// each.
func parquetPrompts(t *testing.T, n int) []byte {
	t.Helper()
	type row struct {
		Prompt string `parquet:"prompt"`
	}
	rows := make([]row, n)
	for i := range rows {
		rows[i].Prompt = strings.Repeat("How far is the moon tonight? ", 1+i%3)
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows, parquet.Compression(&parquet.Uncompressed), parquet.DataPageVersion(1)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lyingPage is data with its first data page's header changed by lie;
// the footer is rewritten for the header's new length, so that only the
// lie is wrong.
func lyingPage(t *testing.T, data []byte, lie func(*format.PageHeader)) []byte {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	md := f.Metadata()
	if len(md.RowGroups) != 1 || len(md.RowGroups[0].Columns) != 1 {
		t.Fatalf("want one row group of one column, have %+v", md.RowGroups)
	}
	chunk := &md.RowGroups[0].Columns[0]
	at := chunk.MetaData.DataPageOffset
	n, err := thriftStruct(data[at:], 0)
	if err != nil {
		t.Fatal(err)
	}
	var h format.PageHeader
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[at:at+int64(n)], &h); err != nil {
		t.Fatal(err)
	}
	if !h.DataPageHeader.Valid {
		t.Fatal("the first page is not a data page (v1)")
	}
	lie(&h)
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	grown := int64(len(b) - n)
	chunk.MetaData.TotalCompressedSize += grown
	for _, off := range []*int64{&chunk.ColumnIndexOffset, &chunk.OffsetIndexOffset} {
		if *off > at {
			*off += grown
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		t.Fatal(err)
	}
	bodyEnd := len(data) - 8 - int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	out := append(append([]byte{}, data[:at]...), b...)
	out = append(out, data[at+int64(n):bodyEnd]...)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestParquetFilesOfCommonShapesPassTheChecks writes the shapes dataset
// files come in (each codec, both page versions, dictionaries, several
// row groups, a column of nothing but nulls over 200,000 rows) and reads
// every row back through the checks.
func TestParquetFilesOfCommonShapesPassTheChecks(t *testing.T) {
	type row struct {
		Prompt string  `parquet:"prompt"`
		System *string `parquet:"system,optional"`
		Source string  `parquet:"source,dict"`
		Keep   bool    `parquet:"keep"`
	}
	tests := []struct {
		name string
		rows int
		opts []parquet.WriterOption
	}{
		{"snappy, pages v2", 1000, []parquet.WriterOption{parquet.Compression(&parquet.Snappy)}},
		{"gzip, pages v1", 1000, []parquet.WriterOption{parquet.Compression(&parquet.Gzip), parquet.DataPageVersion(1)}},
		{"zstd, pages v2", 1000, []parquet.WriterOption{parquet.Compression(&parquet.Zstd)}},
		{"uncompressed, small pages", 1000, []parquet.WriterOption{parquet.PageBufferSize(512)}},
		{"200,000 rows in large pages", 200_000, []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(64 << 20)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := make([]row, tt.rows)
			for i := range rows {
				rows[i] = row{Prompt: "Count the stars.", Source: "sharegpt", Keep: true}
			}
			path := filepath.Join(t.TempDir(), "rows.parquet")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			w := parquet.NewGenericWriter[row](f, tt.opts...)
			for i := 0; i < len(rows); i += 400 {
				if _, err := w.Write(rows[i:min(i+400, len(rows))]); err != nil {
					t.Fatal(err)
				}
				if i == 400 {
					w.Flush() // a second row group
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			n := 0
			err = readParquetRows(path, func(r map[string]any) {
				if r["prompt"] == "Count the stars." && r["system"] == nil {
					n++
				}
			})
			if err != nil || n != tt.rows {
				t.Fatalf("readParquetRows = %d rows, %v; want %d", n, err, tt.rows)
			}
		})
	}
}

func TestCheckPageBoundsEachPageAndTheFile(t *testing.T) {
	page := func(compressed, uncompressed, values int32) *format.PageHeader {
		h := &format.PageHeader{CompressedPageSize: compressed, UncompressedPageSize: uncompressed}
		h.DataPageHeader.Valid = true
		h.DataPageHeader.V.NumValues = values
		return h
	}
	tests := []struct {
		name   string
		h      *format.PageHeader
		rest   int64
		budget int64
		want   string // "" for a page that passes
	}{
		{"a page that fits", page(100, 1000, 50), 100, 1 << 20, ""},
		{"a repeated prompt expanding 8,000 times", page(400, 3_200_000, 200_000), 400, 1 << 30, ""},
		{"a page of 16 M nulls", page(20, 64, maxPageValues), 20, 1 << 30, ""},
		{"a page past its chunk", page(101, 1000, 50), 100, 1 << 20, "claims 101 bytes, 100 remain"},
		{"a negative size", page(-1, 1000, 50), 100, 1 << 20, "claims -1 bytes"},
		{"more than a page may expand to", page(100, maxPageBytes+1, 50), 100, 1 << 30, "uncompressed bytes, more than"},
		{"more values than a page may hold", page(100, 1000, maxPageValues+1), 100, 1 << 30, "values, more than"},
		{"the file's last allowance spent", page(100, 1000, 50), 100, 1199, "pages claim more than 1199 bytes in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := pageBudget{all: tt.budget, left: tt.budget}
			err := checkPage(tt.h, tt.rest, &b)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("checkPage = %v; want %q", err, tt.want)
			}
			if spent := int64(tt.h.UncompressedPageSize) + bytesPerValue*int64(tt.h.DataPageHeader.V.NumValues); err == nil && b.left != tt.budget-spent {
				t.Fatalf("budget left %d, want %d", b.left, tt.budget-spent)
			}
		})
	}
}
