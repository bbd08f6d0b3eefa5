//go:build linux

package report

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// This file drives headless Chromium over the DevTools protocol, with the
// small WebSocket client that protocol needs, so that the browser tests
// can see every request and console message of a page, time its loading,
// and ask the rendered page what it holds.

// chromiumPath returns the browser to test with: $GOODPUT_CHROMIUM, or
// Chromium or Chrome on the PATH. Without one the test is skipped, except
// in CI (CI set), where a missing browser fails it: CI installs Chromium
// (apt-get install chromium), so its absence is a broken setup, not a
// reason to pass.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("GOODPUT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but no Chromium was found: install it (apt-get install -y chromium) or set GOODPUT_CHROMIUM")
	}
	t.Skip("no Chromium found (set GOODPUT_CHROMIUM, or install chromium); CI runs this test")
	return ""
}

// browser is a headless Chromium started for one test.
type browser struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	page   *cdp
}

// startBrowser starts headless Chromium on an empty page, isolated in its
// own profile under the test's temporary directory and kept off the
// network's background services, and connects to its page. The browser is
// stopped when the test ends.
func startBrowser(t testing.TB, path string) *browser {
	t.Helper()
	profile := t.TempDir()
	b := &browser{}
	b.cmd = exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--window-size=1280,1600", "about:blank")
	b.cmd.Stderr = &b.stderr
	// Its own process group, so that stopping it stops its helpers too.
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(b.stop)
	port, err := devToolsPort(filepath.Join(profile, "DevToolsActivePort"), 60*time.Second)
	if err != nil {
		t.Fatalf("%v\nbrowser output:\n%s", err, b.stderr.String())
	}
	wsURL, err := pageTarget(port)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := dialWS(wsURL)
	if err != nil {
		t.Fatalf("connect to %s: %v", wsURL, err)
	}
	b.page = &cdp{ws: ws}
	for _, domain := range []string{"Page", "Network", "Runtime", "Log"} {
		if _, err := b.page.call(domain+".enable", nil, 30*time.Second); err != nil {
			t.Fatalf("%s.enable: %v", domain, err)
		}
	}
	return b
}

func (b *browser) stop() {
	if b.page != nil {
		b.page.ws.Close()
	}
	if b.cmd.Process != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		_ = b.cmd.Wait()
	}
}

// devToolsPort waits for the browser to write the port it listens on.
func devToolsPort(path string, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if line, _, ok := strings.Cut(string(b), "\n"); ok {
				if port, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
					return port, nil
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, fmt.Errorf("%s: the browser did not start its DevTools server within %v", path, timeout)
}

// pageTarget returns the DevTools WebSocket URL of the browser's page.
func pageTarget(port int) (string, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/json/list")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var targets []struct {
		Type, URL            string
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return "", fmt.Errorf("/json/list: %w", err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.URL == "about:blank" {
			return tg.WebSocketDebuggerURL, nil
		}
	}
	return "", fmt.Errorf("/json/list: no blank page among %d targets", len(targets))
}

// cdp is a DevTools protocol session on one page. Calls are made one at a
// time; events that arrive meanwhile are kept in order for the test.
type cdp struct {
	ws     *wsConn
	id     int
	events []cdpEvent
}

type cdpEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a command and returns its result.
func (c *cdp) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	c.id++
	id := c.id
	if params == nil {
		params = struct{}{}
	}
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := c.ws.WriteText(msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		m, err := c.read(deadline)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID == id {
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return m.Result, nil
		}
	}
}

// wait returns the first event named method not yet waited for.
func (c *cdp) wait(method string, timeout time.Duration) (json.RawMessage, error) {
	deadline := time.Now().Add(timeout)
	seen := 0
	for {
		for ; seen < len(c.events); seen++ {
			if c.events[seen].Method == method {
				ev := c.events[seen]
				c.events[seen].Method = "(waited) " + method
				return ev.Params, nil
			}
		}
		if _, err := c.read(deadline); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", method, err)
		}
	}
}

// read reads one message, keeping it if it is an event.
func (c *cdp) read(deadline time.Time) (cdpMessage, error) {
	var m cdpMessage
	b, err := c.ws.ReadMessage(deadline)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("message %.200q: %w", b, err)
	}
	if m.Method != "" {
		c.events = append(c.events, cdpEvent{Method: m.Method, Params: m.Params})
	}
	return m, nil
}

// evaluate runs a JavaScript expression in the page (DevTools evaluation,
// which the page's own policy does not restrict) and decodes its value.
func (c *cdp) evaluate(expr string, out any) error {
	res, err := c.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, 60*time.Second)
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("evaluate %q: %s", expr, r.Exception.Text)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// wsConn is the client side of a WebSocket (RFC 6455): enough for the
// DevTools protocol, which sends text messages over a local connection.
type wsConn struct {
	conn net.Conn
	br   *bufio.Reader
}

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

func dialWS(raw string) (*wsConn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	keyBytes := make([]byte, 16)
	_, _ = rand.Read(keyBytes)
	key := base64.StdEncoding.EncodeToString(keyBytes)
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(key + wsGUID))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("handshake refused: %s", resp.Status)
	}
	_ = conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, br: br}, nil
}

func (w *wsConn) Close() error { return w.conn.Close() }

// WriteText sends one masked text frame, as a client must.
func (w *wsConn) WriteText(p []byte) error { return w.writeFrame(0x1, p) }

func (w *wsConn) writeFrame(op byte, p []byte) error {
	var hdr []byte
	hdr = append(hdr, 0x80|op)
	switch n := len(p); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 0x80|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	_, _ = rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	body := make([]byte, len(p))
	for i := range p {
		body[i] = p[i] ^ mask[i%4]
	}
	_ = w.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := w.conn.Write(append(hdr, body...))
	return err
}

// ReadMessage returns the next complete text or binary message, answering
// pings and joining fragments on the way.
func (w *wsConn) ReadMessage(deadline time.Time) ([]byte, error) {
	_ = w.conn.SetReadDeadline(deadline)
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 256<<20 {
			return nil, fmt.Errorf("frame of %d bytes", n)
		}
		var mask []byte
		if h[1]&0x80 != 0 {
			mask = make([]byte, 4)
			if _, err := io.ReadFull(w.br, mask); err != nil {
				return nil, err
			}
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(w.br, p); err != nil {
			return nil, err
		}
		if mask != nil {
			for i := range p {
				p[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8:
			return nil, errors.New("connection closed by the browser")
		case 0x9:
			if err := w.writeFrame(0xA, p); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}
