package load

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
)

// sniffLen is how many of a connection's first bytes sniffConn keeps:
// enough to tell "HTTP/" from anything else.
const sniffLen = 5

// sniffConn is a client connection that keeps the first bytes the server
// sent on it, so that a request failing on it can be told apart: a reset
// or an unparsable answer from a server that never spoke HTTP is a
// protocol error, whichever of the two the client's race produced.
type sniffConn struct {
	net.Conn
	full  atomic.Bool // first holds sniffLen bytes: Read need not lock
	mu    sync.Mutex  // guards first
	first []byte
}

func (c *sniffConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.full.Load() {
		c.mu.Lock()
		c.first = append(c.first, p[:min(n, sniffLen-len(c.first))]...)
		if len(c.first) == sniffLen {
			c.full.Store(true)
		}
		c.mu.Unlock()
	}
	return n, err
}

// notHTTP returns the first bytes the server sent when they can begin
// neither an HTTP/1 response nor a TLS record (under which HTTP cannot be
// seen), and nil when they can or none arrived.
func (c *sniffConn) notHTTP() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.first
	switch {
	case len(b) == 0:
		return nil
	case bytes.HasPrefix([]byte("HTTP/"), b) || bytes.HasPrefix(b, []byte("HTTP/")):
		return nil
	case b[0] >= 0x14 && b[0] <= 0x17: // a TLS record's content type
		return nil
	}
	return bytes.Clone(b)
}
