package record

import (
	"errors"
	"io"
)

// batchSize is how many records ReadBatches decodes before handing them over.
const batchSize = 256

// ReadBatches decodes every record of r and calls fn with them in batches,
// in file order. Decoding runs on its own goroutine, so decoding and fn's
// work overlap on a machine with two cores. fn must not keep the slice or
// its records' Chunks after it returns: their storage is reused. It returns
// how many records were read, and the first error of decoding or of fn.
func ReadBatches(r Reader, fn func([]Record) error) (int64, error) {
	// Three buffers circulate: one being filled, one being consumed, one
	// spare, so neither side waits on the other in the steady state.
	free := make(chan []Record, 3)
	for range 3 {
		free <- make([]Record, batchSize)
	}
	full := make(chan []Record, 3)
	stop := make(chan struct{})
	decErr := make(chan error, 1)
	go func() { // owns full: closes it when done
		defer close(full)
		for {
			var buf []Record
			select {
			case buf = <-free:
			case <-stop:
				decErr <- nil
				return
			}
			n := 0
			var err error
			for n < len(buf) {
				if err = r.Next(&buf[n]); err != nil {
					break
				}
				n++
			}
			if n > 0 {
				select {
				case full <- buf[:n]:
				case <-stop:
					decErr <- nil
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				decErr <- err
				return
			}
		}
	}()
	var count int64
	var fnErr error
	for b := range full {
		if fnErr == nil {
			if fnErr = fn(b); fnErr != nil {
				close(stop)
			}
			count += int64(len(b))
		}
		free <- b[:cap(b)]
	}
	if err := <-decErr; err != nil {
		return count, err
	}
	return count, fnErr
}
