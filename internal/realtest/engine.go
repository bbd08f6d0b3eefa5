// Package realtest runs goodput against a real inference engine: upstream
// llama.cpp's llama-server with a tiny random-weight model, provided beside
// the repository in ../shared/realengine/ (its README says what they are).
// The tests drive the goodput command in-process, as a user would, and
// check what only a real server shows: its keep-alive habits, its
// tokenizer and chat template, its usage counts against its own /metrics,
// its slots under overload, and what happens when it dies.
//
// Engine finds the server; Start runs one on a free loopback port and
// stops it when the test ends. A test that cannot find the server skips,
// except when the environment variable CI is set, where it fails: CI must
// not pass by testing nothing.
package realtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// DirEnv names a directory holding llama-server and tiny-llama.gguf, to use
// instead of ../shared/realengine/ beside the module root.
const DirEnv = "GOODPUT_REALENGINE"

// Engine is where the server and its model are.
type Engine struct {
	Bin   string // the llama-server binary
	Model string // the GGUF model it serves
}

// FindEngine locates the engine: $GOODPUT_REALENGINE, else
// ../shared/realengine/ relative to the directory holding go.mod (found by
// walking up from the working directory, which is the package's own under
// go test).
func FindEngine() (Engine, error) {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return Engine{}, err
		}
		dir = filepath.Join(root, "..", "shared", "realengine")
	}
	e := Engine{Bin: filepath.Join(dir, "llama-server"), Model: filepath.Join(dir, "tiny-llama.gguf")}
	for _, p := range []string{e.Bin, e.Model} {
		if _, err := os.Stat(p); err != nil {
			return Engine{}, fmt.Errorf("real engine: %w (set $%s to a directory with llama-server and tiny-llama.gguf)", err, DirEnv)
		}
	}
	return e, nil
}

// moduleRoot is the nearest directory at or above the working directory
// that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("real engine: no go.mod above the working directory")
		}
		dir = up
	}
}

// Need returns the engine or ends the test: a skip when it is absent, a
// failure when CI is set.
func Need(t testing.TB) Engine {
	t.Helper()
	e, err := FindEngine()
	if err == nil {
		return e
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%v; CI must run the real-engine tests", err)
	}
	t.Skip(err)
	return Engine{}
}

// Options configure one server.
type Options struct {
	Parallel int    // --parallel: slots, sequences decoded together (default 4)
	APIKey   string // --api-key: the key every endpoint but /health then asks for, /metrics too; "" for none
}

// Server is a running llama-server.
type Server struct {
	URL string // http://127.0.0.1:PORT

	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{} // closed when the process has exited
	once sync.Once
}

// Start runs the engine on a free loopback port with --metrics, one CPU
// thread (the other core is the client's; see the engine's README) and
// 2,048 tokens of context per slot, and waits until /health answers 200.
// The server is stopped when t ends; Stop or Kill end it sooner.
func Start(t testing.TB, e Engine, o Options) *Server {
	t.Helper()
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	var last error
	for range 3 { // a port taken between choosing it and binding it: try another
		s, err := start(e, o)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		last = err
	}
	t.Fatalf("start llama-server: %v", last)
	return nil
}

func start(e Engine, o Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.Bin, "-m", e.Model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--parallel", strconv.Itoa(o.Parallel), "--metrics", "-c", strconv.Itoa(2048*o.Parallel), "--threads", "1")
	if o.APIKey != "" {
		cmd.Args = append(cmd.Args, "--api-key", o.APIKey)
	}
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitHealthy(60 * time.Second); err != nil {
		s.Kill()
		return nil, fmt.Errorf("%w\n%s", err, log.String())
	}
	return s, nil
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitHealthy polls /health until it answers 200, the process exits, or
// limit passes.
func (s *Server) waitHealthy(limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return errors.New("llama-server exited before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("llama-server at %s not healthy within %v", s.URL, limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill ends the server at once (SIGKILL), as a crash would, and waits for
// it to exit.
func (s *Server) Kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// Stop asks the server to exit (SIGTERM), kills it after 5 s, and waits.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.Kill()
		}
	})
}

// Log returns what the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// syncBuffer keeps the last logLimit bytes the server printed, for the
// test and the server's output goroutines to share: the server logs every
// request, and only the end matters when it fails.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

const logLimit = 256 << 10

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len()+len(p) > 2*logLimit {
		keep := b.b.Bytes()[max(0, b.b.Len()-logLimit):]
		b.b = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
