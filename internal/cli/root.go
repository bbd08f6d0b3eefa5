// Package cli wires goodput's subcommands: flags become configuration, which
// is handed to the library packages. It holds no measurement logic of its own.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes, documented in the README.
const (
	ExitOK        = 0 // success
	ExitTool      = 1 // the tool itself failed (I/O, bad data, unreachable server)
	ExitUsage     = 2 // bad flags or arguments
	ExitGateFail  = 3 // an SLO gate failed
	ExitInterrupt = 130
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=…".
var Version = "dev"

// Env is the process environment a command runs in. Injecting it keeps every
// command testable without touching the real stdout, stderr or environment.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	// Getenv looks up an environment variable; nil means os.Getenv.
	Getenv func(string) string
	// IsTerminal reports whether Stdout is an interactive terminal.
	IsTerminal bool
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

// ExitError carries an exit code with an error. Commands return it to ask
// main for a code other than ExitTool.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErr marks err as a usage error (exit code 2).
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Code maps an error returned by a command to the process exit code.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitTool
}

// NewRoot builds the goodput command tree.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "goodput",
		Short: "Measure LLM serving honestly: TTFT, TPOT/ITL, throughput and goodput",
		Long: `goodput load-tests LLM servers (vLLM, SGLang, TGI, llama.cpp, Ollama, any
OpenAI-compatible API) and reports TTFT, TPOT/ITL, end-to-end latency,
throughput and goodput (the throughput that met its SLO) at percentiles.

Exit codes: 0 ok, 1 tool error, 2 usage error, 3 an SLO gate failed.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetIn(env.Stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", c.CommandPath(), err)}
	})
	root.AddCommand(
		newVersionCmd(env),
		newBenchCmd(env),
		newAnalyzeCmd(env),
		newPlanCmd(env),
		newReportCmd(env),
		newCompareCmd(env),
		newExportCmd(env),
		newSweepCmd(env),
		newSimCmd(env),
		newWatchCmd(env),
		newHistoryCmd(env),
	)
	for _, c := range root.Commands() {
		if loadCommands[c.Name()] {
			groupFlagHelp(c)
		}
	}
	return root
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print goodput's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(env.Stdout, "goodput %s\n", Version)
			return err
		},
	}
}
