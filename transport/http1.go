package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// respParser follows one HTTP/1.1 response through the bytes a connection
// delivers, in whatever pieces they come: the header, parsed by net/http's
// own ReadResponse once it is complete, so that its rules and errors are
// net/http's; then the body, framed by Content-Length, chunked encoding or
// the connection's close, decoded in place: body data is handed on as
// sub-slices of the bytes given, never copied. Its errors are net/http's
// for the same faults. Reset it for each response.
type respParser struct {
	req *http.Request

	hdr   []byte // the header so far, until it is complete
	seen  int    // hdr[:seen] holds no end of header: resume there
	infos int    // 1xx answers skipped
	// block and br read a complete header for ReadResponse, kept from one
	// response to the next.
	block bytes.Reader
	br    *bufio.Reader

	mode   bodyMode
	left   uint64 // bytes left in the body (length) or in the chunk (chunked)
	chunk  chunkPart
	line   []byte // a chunk-size or trailer line so far
	excess int64  // chunked overhead beyond the allowance, as net/http counts it
	ended  bool   // the body is complete
}

type bodyMode uint8

const (
	bodyNone    bodyMode = iota // no body (204, 304, Content-Length: 0)
	bodyLength                  // Content-Length bytes
	bodyChunked                 // Transfer-Encoding: chunked
	bodyClose                   // until the server closes the connection
)

// chunkPart is where a chunked body is.
type chunkPart uint8

const (
	chunkSize    chunkPart = iota // reading a chunk-size line
	chunkData                     // reading chunk data
	chunkCRLF                     // reading the CRLF after chunk data
	chunkTrailer                  // reading trailer lines after the last chunk
)

// Limits, as net/http's client has them.
const (
	maxHeaderBytes  = 10 << 20 // http.Transport's default MaxResponseHeaderBytes
	maxChunkLine    = 4096     // net/http/internal's maxLineLength
	maxTrailerBytes = 4096     // net/http reads a trailer within its 4 kB buffer
	max1xx          = 5        // net/http's limit on informational answers
)

var (
	errChunkBareLF    = errors.New("chunked line ends with bare LF")
	errChunkCR        = errors.New("invalid CR in chunked line")
	errChunkLineLong  = errors.New("header line too long")
	errChunkMalformed = errors.New("malformed chunked encoding")
	errChunkOverhead  = errors.New("chunked encoding contains too much non-data")
	errTrailerLong    = errors.New("http: suspiciously long trailer after chunked body")
	errTrailerEOF     = errors.New("http: unexpected EOF reading trailer")
)

// reset prepares p for the response to req.
func (p *respParser) reset(req *http.Request) {
	*p = respParser{req: req, hdr: p.hdr[:0], line: p.line[:0], br: p.br}
}

// header takes the bytes b that follow what header was given before, and
// returns the response once its header is complete, with the bytes after
// it; nil, nil, nil while more are needed. Informational (1xx) answers are
// skipped, as net/http skips them. The body mode is set from the response.
func (p *respParser) header(b []byte) (*http.Response, []byte, error) {
	p.hdr = append(p.hdr, b...)
	for {
		if len(p.hdr) > 0 && !couldBeHTTP(p.hdr) {
			return nil, nil, &NotHTTPError{Begins: bytes.Clone(p.hdr[:min(len(p.hdr), 5)]),
				Err: fmt.Errorf("malformed HTTP response %q", firstLine(p.hdr))}
		}
		end := headerEnd(p.hdr, p.seen)
		if end < 0 {
			if len(p.hdr) > maxHeaderBytes {
				return nil, nil, fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxHeaderBytes)
			}
			p.seen = max(len(p.hdr)-3, 0)
			return nil, nil, nil
		}
		p.block.Reset(p.hdr[:end])
		if p.br == nil {
			p.br = bufio.NewReaderSize(&p.block, 1024)
		} else {
			p.br.Reset(&p.block)
		}
		resp, err := http.ReadResponse(p.br, p.req)
		if err != nil {
			return nil, nil, err
		}
		rest := p.hdr[end:]
		if c := resp.StatusCode; c >= 100 && c <= 199 && c != http.StatusSwitchingProtocols {
			if p.infos++; p.infos > max1xx {
				return nil, nil, errors.New("net/http: too many 1xx informational responses")
			}
			p.hdr = append(p.hdr[:0], rest...)
			p.seen = 0
			continue
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, nil, errors.New("the server switched protocols (101), which a benchmark request never asks for")
		}
		resp.Body = http.NoBody
		switch {
		case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
			p.mode = bodyChunked
		case resp.ContentLength > 0:
			p.mode, p.left = bodyLength, uint64(resp.ContentLength)
		case resp.ContentLength == 0:
			p.mode = bodyNone
		default:
			p.mode = bodyClose
		}
		p.ended = p.mode == bodyNone
		// The bytes after the header stay in hdr's array; the caller
		// uses them before the next call.
		return resp, rest, nil
	}
}

// couldBeHTTP reports whether b can begin an HTTP/1 status line.
func couldBeHTTP(b []byte) bool {
	const prefix = "HTTP/"
	n := min(len(b), len(prefix))
	return string(b[:n]) == prefix[:n]
}

// firstLine returns b up to its first line end, at most 64 bytes.
func firstLine(b []byte) []byte {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	return b[:min(len(b), 64)]
}

// headerEnd returns the length of the header in b, blank line included,
// or -1 when it has not ended; b[:from] holds no end. Like net/http, it
// takes a bare LF as a line end.
func headerEnd(b []byte, from int) int {
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		k := i + j + 1 // after this LF
		switch {
		case k < len(b) && b[k] == '\n':
			return k + 1
		case k+1 < len(b) && b[k] == '\r' && b[k+1] == '\n':
			return k + 2
		case k+1 == len(b) && b[k] == '\r':
			return -1 // "\n\r", its LF yet to come
		}
		i = k
	}
	return -1
}

// body decodes body bytes b, handing data to sink in order (sub-slices of
// b), and returns the bytes after the body once it is complete. sink must
// not keep the slices.
func (p *respParser) body(b []byte, sink func([]byte)) (rest []byte, err error) {
	for len(b) > 0 && !p.ended {
		switch p.mode {
		case bodyClose:
			sink(b)
			return nil, nil
		case bodyLength:
			k := min(uint64(len(b)), p.left)
			sink(b[:k])
			b = b[k:]
			if p.left -= k; p.left == 0 {
				p.ended = true
			}
		case bodyChunked:
			if b, err = p.chunked(b, sink); err != nil {
				return nil, err
			}
		default:
			p.ended = true
		}
	}
	if p.ended {
		return b, nil
	}
	return nil, nil
}

// chunked decodes chunked-encoding bytes until b is used up or the body
// ends, and returns what it did not use.
func (p *respParser) chunked(b []byte, sink func([]byte)) ([]byte, error) {
	for len(b) > 0 && !p.ended {
		switch p.chunk {
		case chunkSize, chunkTrailer:
			i := bytes.IndexByte(b, '\n')
			piece := b
			if i >= 0 {
				piece = b[:i+1]
			}
			limit := maxChunkLine + 2
			if p.chunk == chunkTrailer {
				limit = maxTrailerBytes
			}
			if len(p.line)+len(piece) > limit {
				if p.chunk == chunkTrailer {
					return nil, errTrailerLong
				}
				return nil, errChunkLineLong
			}
			p.line = append(p.line, piece...)
			b = b[len(piece):]
			if i < 0 {
				return b, nil // the line goes on in the next read
			}
			line := p.line
			p.line = p.line[:0]
			if p.chunk == chunkTrailer {
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					p.ended = true
				}
				continue
			}
			n, err := p.chunkSize(line)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				p.chunk = chunkTrailer
				continue
			}
			p.chunk, p.left = chunkData, n
		case chunkData:
			k := min(uint64(len(b)), p.left)
			sink(b[:k])
			b = b[k:]
			if p.left -= k; p.left == 0 {
				p.chunk = chunkCRLF
			}
		case chunkCRLF:
			// The two bytes may come in two reads; line holds the first.
			p.line = append(p.line, b[0])
			b = b[1:]
			if len(p.line) < 2 {
				continue
			}
			ok := string(p.line) == "\r\n"
			p.line = p.line[:0]
			if !ok {
				return nil, errChunkMalformed
			}
			p.chunk = chunkSize
		}
	}
	return b, nil
}

// chunkSize reads a chunk-size line (CRLF included) as net/http does.
func (p *respParser) chunkSize(line []byte) (uint64, error) {
	if i := bytes.IndexByte(line, '\r'); i == -1 {
		return 0, errChunkBareLF
	} else if i != len(line)-2 {
		return 0, errChunkCR
	}
	line = line[:len(line)-2]
	if len(line) >= maxChunkLine {
		return 0, errChunkLineLong
	}
	p.excess += int64(len(line)) + 2
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
		line = line[:len(line)-1]
	}
	line, _, _ = bytes.Cut(line, []byte(";"))
	if len(line) == 0 {
		return 0, errors.New("empty hex number for chunk length")
	}
	var n uint64
	for i, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, errors.New("invalid byte in chunk length")
		}
		if i == 16 {
			return 0, errors.New("http chunk length too large")
		}
		n = n<<4 | uint64(c)
	}
	p.excess = max(p.excess-16-2*int64(min(n, 1<<40)), 0)
	if p.excess > 16*1024 {
		return 0, errChunkOverhead
	}
	return n, nil
}

// eof says what the connection's end means for the response: nil when it
// ends the body (a body framed by the close), io.EOF when no byte of the
// response came, else the unexpected end net/http reports.
func (p *respParser) eof(headerDone bool) error {
	switch {
	case !headerDone && len(p.hdr) == 0:
		return io.EOF
	case !headerDone:
		return io.ErrUnexpectedEOF
	case p.ended:
		return nil
	case p.mode == bodyClose:
		p.ended = true
		return nil
	case p.mode == bodyChunked && p.chunk == chunkTrailer:
		return errTrailerEOF
	}
	return io.ErrUnexpectedEOF
}
