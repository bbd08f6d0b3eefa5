package sweepserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is the kind of server a command starts, read from its words: it
// decides the default port and how caches are reset between runs.
type Kind int

const (
	Unknown   Kind = iota
	VLLM           // vllm serve, or python -m vllm.entrypoints…
	Simulator      // goodput sim, which answers vLLM's cache resets
	SGLang         // python -m sglang.launch_server, sglang serve
	LlamaCpp       // llama-server
)

func (k Kind) String() string {
	return [...]string{"an unknown server", "vLLM", "goodput's simulator", "SGLang", "llama.cpp's llama-server"}[k]
}

// KindOf reads the kind of server a command starts. A container run
// (docker or podman run) is the kind of its image or of the command it
// runs: vllm/vllm-openai is vLLM, lmsysorg/sglang SGLang,
// ghcr.io/ggml-org/llama.cpp:server llama.cpp.
func KindOf(cmd []string) Kind {
	_, cmd = splitEnv(cmd)
	if len(cmd) == 0 {
		return Unknown
	}
	if c, ok := containerRun(cmd); ok {
		if len(c.args) > 0 && !strings.HasPrefix(c.args[0], "-") {
			if k := KindOf(c.args); k != Unknown {
				return k
			}
		}
		image := strings.ToLower(c.image)
		switch {
		case strings.Contains(image, "vllm"):
			return VLLM
		case strings.Contains(image, "sglang"):
			return SGLang
		case strings.Contains(image, "llama.cpp") || strings.Contains(image, "llama-server"):
			return LlamaCpp
		}
		return Unknown
	}
	base := filepath.Base(cmd[0])
	switch {
	case base == "vllm":
		return VLLM
	case strings.HasPrefix(base, "goodput") && len(cmd) > 1 && cmd[1] == "sim":
		return Simulator
	case base == "llama-server":
		return LlamaCpp
	case base == "sglang":
		return SGLang
	}
	for _, a := range cmd[1:] {
		switch {
		case strings.HasPrefix(a, "vllm.entrypoints"):
			return VLLM
		case strings.HasPrefix(a, "sglang.launch_server"):
			return SGLang
		}
	}
	return Unknown
}

// defaultPort is where each kind listens when its command names no port.
func (k Kind) defaultPort() string {
	switch k {
	case SGLang:
		return "30000"
	case LlamaCpp:
		return "8080"
	}
	return "8000" // vllm serve, goodput sim
}

// Address is the base URL a server command listens on, from its --host
// and --port (or -p): vLLM's defaults otherwise, or the kind's own port.
// A wildcard host (0.0.0.0, ::) is reached on loopback. For a container
// run it is the host side of the port published for the server's port
// (-p 8001:8000), or the server's own address with --network host.
func Address(cmd []string) string {
	_, cmd = splitEnv(cmd)
	if len(cmd) == 0 {
		return "http://127.0.0.1:8000"
	}
	c, inContainer := containerRun(cmd)
	inner := cmd
	if inContainer {
		inner = append([]string{c.image}, c.args...)
	}
	host, port := "", KindOf(cmd).defaultPort()
	for i := 1; i < len(inner); i++ {
		name, val, has := strings.Cut(inner[i], "=")
		if !has && i+1 < len(inner) {
			val = inner[i+1]
		}
		switch name {
		case "--host":
			host = val
		case "--port", "-p":
			port = val
		}
	}
	if inContainer && !c.hostNetwork {
		host = ""
		if h, p, ok := c.published(port); ok {
			host, port = h, p
		}
	}
	switch host {
	case "", "0.0.0.0", "localhost":
		host = "127.0.0.1"
	case "::", "[::]":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// assignment is a shell's NAME=value before a command.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// splitEnv splits a command line as a shell runs it: the NAME=value words
// before the program (CUDA_VISIBLE_DEVICES=0,1 vllm serve …), or after an
// env program, are its environment; the rest is the command.
func splitEnv(argv []string) (env, cmd []string) {
	i := 0
	if len(argv) > 0 && filepath.Base(argv[0]) == "env" {
		i = 1
	}
	for i < len(argv) && assignment.MatchString(argv[i]) {
		env = append(env, argv[i])
		i++
	}
	if len(env) == 0 && i == 1 {
		return nil, argv // env alone, or env with options: a program like any other
	}
	return env, argv[i:]
}

// resetPaths are the endpoints that clear a server's caches between runs,
// for the kinds that have them.
func (k Kind) resetPaths() []string {
	switch k {
	case VLLM, Simulator:
		return []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"}
	case SGLang:
		return []string{"/flush_cache"}
	}
	return nil
}

// CanReset reports whether goodput knows how to clear this kind's caches.
func (k Kind) CanReset() bool { return k.resetPaths() != nil }

// server is a running server command.
type server struct {
	cmd    *exec.Cmd
	argv   []string
	kind   Kind
	addr   string
	log    *os.File
	logPth string
	grace  time.Duration
	exited chan struct{} // closed when the command has exited
	err    error         // its exit status, once exited is closed

	warnOnce sync.Map // reset endpoints found missing, warned of once
}

// startServer starts argv in its own process group, its output going to
// logPath (and to show, when not nil). It refuses to start when something
// already answers at the address: the benchmark would measure that
// instead.
func startServer(argv []string, logPath string, show io.Writer, grace time.Duration) (*server, error) {
	s := &server{argv: argv, kind: KindOf(argv), addr: Address(argv), logPth: logPath, grace: grace, exited: make(chan struct{})}
	host := strings.TrimPrefix(s.addr, "http://")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%s already answers before the server command has started: another server is running there; stop it, or give the command another --port", s.addr)
	}
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s.log = f
	var out io.Writer = f
	if show != nil {
		out = io.MultiWriter(f, show)
	}
	env, words := splitEnv(argv)
	if len(words) == 0 {
		return nil, fmt.Errorf("the server command %q sets variables but names no program", strings.Join(argv, " "))
	}
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	// vLLM serves its cache resets only in development mode.
	cmd.Env = append(append(os.Environ(), "VLLM_SERVER_DEV_MODE=1"), env...)
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting the server command: %w", err)
	}
	s.cmd = cmd
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// waitReady polls /health until it answers 200, the command exits, the
// timeout passes or ctx ends.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	url := s.addr + "/health"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			return fmt.Errorf("the server command exited (%v) before GET %s answered 200%s", s.err, url, s.tail())
		case <-deadline.C:
			return fmt.Errorf("the server was not ready within --server-ready-timeout %v: GET %s never answered 200%s", timeout, url, s.tail())
		case <-tick.C:
		}
	}
}

// tail is the end of the server's output, for an error message.
func (s *server) tail() string {
	b, err := os.ReadFile(s.logPth)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return fmt.Sprintf("; it printed nothing (%s)", s.logPth)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return fmt.Sprintf("; the end of its output (%s):\n  %s", s.logPth, strings.Join(lines, "\n  "))
}

// stop ends the server's process group: SIGTERM, then SIGKILL after the
// grace period, and SIGKILL again for any process of the group that
// outlived the leader.
func (s *server) stop() error {
	defer s.log.Close()
	select {
	case <-s.exited:
	default:
		_ = signalGroup(s.cmd, sigTerm)
		t := time.NewTimer(s.grace)
		select {
		case <-s.exited:
		case <-t.C:
		}
		t.Stop()
	}
	if err := signalGroup(s.cmd, sigKill); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	<-s.exited
	return nil
}

// running reports whether the server command is still running.
func (s *server) running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// reset clears the server's caches between runs: POST to each of its
// kind's reset endpoints. An endpoint the server does not have (404, as an
// older vLLM lacks /reset_encoder_cache) is reported once through warn and
// skipped; any other failure is an error.
func (s *server) reset(ctx context.Context, warn func(string)) error {
	client := &http.Client{Timeout: 30 * time.Second}
	for _, p := range s.kind.resetPaths() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.addr+p, nil)
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("resetting the server's caches: %w", err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			if _, seen := s.warnOnce.LoadOrStore(p, true); !seen {
				hint := ""
				if s.kind == VLLM {
					hint = " (vLLM serves it only with VLLM_SERVER_DEV_MODE=1 in its environment, which the sweep sets; in a container, give docker run -e VLLM_SERVER_DEV_MODE=1)"
				}
				warn(fmt.Sprintf("POST %s%s: 404: this server has no such endpoint; that cache is not reset between runs%s", s.addr, p, hint))
			}
		case resp.StatusCode/100 != 2:
			return fmt.Errorf("resetting the server's caches: POST %s%s: %s %s", s.addr, p, resp.Status, bytes.TrimSpace(body))
		}
	}
	return nil
}

// runCommand runs argv to its end, its output going to out (nil discards
// it) and its errors to errOut. When ctx ends it is sent SIGINT, which
// goodput bench answers by stopping and writing what it measured, then
// killed if it has not exited within a minute.
func runCommand(ctx context.Context, argv []string, out, errOut io.Writer) error {
	env, words := splitEnv(argv)
	if len(words) == 0 {
		return fmt.Errorf("sets variables but names no program: %q", strings.Join(argv, " "))
	}
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitCode(), err: err}
	}
	return err
}

// exitError is a command that ran and exited with a status other than 0.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return "exited with status " + strconv.Itoa(e.code) }
func (e *exitError) Unwrap() error { return e.err }
