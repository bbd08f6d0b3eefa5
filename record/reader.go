package record

// Reader yields records one at a time. Next returns io.EOF after the last.
type Reader interface {
	Header() Header
	Next(r *Record) error
}
