package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/goodput-dev/goodput/record"
)

// Formats a table is written in.
const (
	FormatCSV     = "csv"
	FormatJSONL   = "jsonl"
	FormatParquet = "parquet"
)

// Formats lists the formats, for help texts.
var Formats = []string{FormatCSV, FormatParquet, FormatJSONL}

// Table is a run's requests as rows. Add every record, then write it; it
// is kept in memory because the label columns are known only once every
// record has been seen.
type Table struct {
	o        Options
	rows     []Row
	reasoned bool // a row reasoned: the reasoning columns are written
}

// NewTable returns an empty table.
func NewTable(o Options) *Table { return &Table{o: o} }

// Add appends r's row.
func (t *Table) Add(r *record.Record) {
	row := NewRow(r, t.o)
	t.reasoned = t.reasoned || row.Metrics.Reasoned
	t.rows = append(t.rows, row)
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Columns returns the table's columns in order: the base columns, the
// reasoning columns when a request reasoned, the chunk columns when asked
// for, the place columns its rows use (session, turn, task, call,
// endpoint), then one per label key, sorted.
func (t *Table) Columns() []Column {
	cols := BaseColumns()
	if t.reasoned {
		cols = append(cols, reasoningColumns...)
	}
	if t.o.Chunks {
		cols = append(cols, chunkColumns...)
		if t.reasoned {
			cols = append(cols, chunkReasoningColumn)
		}
	}
	cols = append(cols, usedPlaceColumns(t.rows)...)
	for _, k := range LabelKeys(t.rows) {
		cols = append(cols, labelColumn(k))
	}
	return cols
}

// Write writes the table in format (FormatCSV, FormatJSONL or
// FormatParquet).
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case FormatCSV:
		return t.WriteCSV(w)
	case FormatJSONL:
		return t.WriteJSONL(w)
	case FormatParquet:
		return t.WriteParquet(w)
	}
	return fmt.Errorf("export: format %q: want %s", format, strings.Join(Formats, ", "))
}

// WriteCSV writes a header row of column names, then one row per request.
// A null is an empty cell; a list is its values separated by spaces.
func (t *Table) WriteCSV(w io.Writer) error {
	cols := t.Columns()
	cw := csv.NewWriter(w)
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = c.Name
	}
	if err := cw.Write(cells); err != nil {
		return err
	}
	for i := range t.rows {
		for k, c := range cols {
			v, ok := c.Value(&t.rows[i])
			cells[k] = ""
			if ok {
				cells[k] = csvCell(v)
			}
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvCell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strings.Join(parts, " ")
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}

// WriteJSONL writes one JSON object per request, keys in column order,
// nulls written as null.
func (t *Table) WriteJSONL(w io.Writer) error {
	cols := t.Columns()
	names := make([][]byte, len(cols))
	for i, c := range cols {
		names[i], _ = json.Marshal(c.Name)
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for i := range t.rows {
		line = append(line[:0], '{')
		for k, c := range cols {
			if k > 0 {
				line = append(line, ',')
			}
			line = append(line, names[k]...)
			line = append(line, ':')
			v, ok := c.Value(&t.rows[i])
			if !ok {
				line = append(line, "null"...)
				continue
			}
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("export: row %d, %s: %w", i+1, c.Name, err)
			}
			line = append(line, b...)
		}
		line = append(line, '}', '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// parquetNode is the Parquet type of a column.
func parquetNode(c Column) parquet.Node {
	var n parquet.Node
	switch c.Kind {
	case KindString:
		n = parquet.String()
	case KindInt:
		n = parquet.Int(64)
	case KindFloat:
		n = parquet.Leaf(parquet.DoubleType)
	case KindBool:
		n = parquet.Leaf(parquet.BooleanType)
	case KindFloatList:
		return parquet.List(parquet.Leaf(parquet.DoubleType))
	case KindIntList:
		return parquet.List(parquet.Int(64))
	}
	if c.Optional {
		n = parquet.Optional(n)
	}
	return n
}

// rowsPerGroup bounds a Parquet row group, so that a long run's file is
// written in pieces a reader can skip between.
const rowsPerGroup = 100_000

// WriteParquet writes the table as a Parquet file with one column per
// table column (Parquet orders them by name), compressed with Zstandard.
func (t *Table) WriteParquet(w io.Writer) error {
	cols := t.Columns()
	group := parquet.Group{}
	for _, c := range cols {
		group[c.Name] = parquetNode(c)
	}
	schema := parquet.NewSchema("request", group)
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd))
	row := make(map[string]any, len(cols))
	for i := range t.rows {
		for _, c := range cols {
			v, ok := c.Value(&t.rows[i])
			if !ok {
				v = nil
			}
			row[c.Name] = v
		}
		if err := pw.Write(row); err != nil {
			return fmt.Errorf("export: parquet row %d: %w", i+1, err)
		}
		if (i+1)%rowsPerGroup == 0 {
			if err := pw.Flush(); err != nil {
				return fmt.Errorf("export: parquet: %w", err)
			}
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("export: parquet: %w", err)
	}
	return nil
}
