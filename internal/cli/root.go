// Package cli wires goodput's subcommands: flags become configuration, which
// is handed to the library packages. It holds no measurement logic of its own.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/version"
)

// Exit codes, documented in the README.
const (
	ExitOK        = 0 // success
	ExitTool      = 1 // the tool itself failed (I/O, bad data, unreachable server)
	ExitUsage     = 2 // bad flags or arguments
	ExitGateFail  = 3 // an SLO gate failed
	ExitInterrupt = 130
)

// Version is the build's one-line description (version.String), written
// into run headers and reports; tests may replace it.
var Version = version.String()

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

// besideJSON returns the environment for what a command says beside its
// result: e itself, or with --format json one whose standard output is
// standard error, so that standard output stays one JSON document (a
// pipe to jq reads it whole) while gates, written files and notes are
// still said.
func (e *Env) besideJSON(format string) *Env {
	if format != "json" {
		return e
	}
	aside := *e
	aside.Stdout = e.Stderr
	return &aside
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

// Message is the line an error returned by a command is printed as on
// standard error: "goodput: " and the error, unless the error already
// begins with the command that failed ("goodput bench: --foo: unknown
// flag"), which says whose it is.
func Message(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "goodput ") || strings.HasPrefix(msg, "goodput:") {
		return msg
	}
	return "goodput: " + msg
}

// stopAtOnce names the commands that hold nothing measured when a signal
// comes: they read files and write what they compute from them. The first
// Ctrl-C or SIGTERM ends them (StopsAtOnce), even while they wait on a pipe
// whose writer is gone; a run's first signal only stops its scheduling, so
// that it writes what it measured.
var stopAtOnce = map[string]bool{"analyze": true, "report": true, "export": true, "compare": true, "plan": true}

// stopsAtOnce is the annotation that marks such a command.
const stopsAtOnce = "goodput/stops-at-once"

// StopsAtOnce reports whether the command that args name ends at the
// first signal, so that main exits then with ExitInterrupt instead of
// cancelling the command's context and waiting for it to return.
func StopsAtOnce(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	return err == nil && c.Annotations[stopsAtOnce] == "true"
}

// NewRoot builds the goodput command tree.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "goodput",
		Short: "Measure LLM serving honestly: TTFT, TPOT/ITL, throughput and goodput",
		Long: `goodput load-tests LLM servers (vLLM, SGLang, TGI, llama.cpp, Ollama, any
OpenAI-compatible API) and reports TTFT, TPOT/ITL, end-to-end latency,
throughput and goodput (the throughput that met its SLO) at percentiles.

Exit codes: 0 ok, 1 tool error, 2 usage error, 3 an SLO gate failed (or
history check found a regression), 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version is a flag of our own: cobra's Version would print it
		// through a text/template, and linking text/template keeps every
		// exported method of the binary alive (2.3 MB).
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				_, err := fmt.Fprintf(env.Stdout, "goodput %s\n", Version)
				return err
			}
			return cmd.Help()
		},
	}
	root.Flags().Bool("version", false, "print goodput's version (goodput version says more)")
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetIn(env.Stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", c.CommandPath(), plainFlagError(err))}
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
		newMergeCmd(env),
		newK8sCmd(env),
	)
	for _, c := range root.Commands() {
		if loadCommands[c.Name()] {
			groupFlagHelp(c)
		}
	}
	for _, c := range root.Commands() {
		if stopAtOnce[c.Name()] {
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[stopsAtOnce] = "true"
		}
	}
	rejectUnknownCommands(root)
	return root
}

// rejectUnknownCommands makes a word that names no subcommand a usage
// error (exit code 2) wherever commands have subcommands: cobra's own
// error would exit 1, and a parent without a run function would print its
// help and exit 0, as if `goodput history lsit` had worked.
func rejectUnknownCommands(c *cobra.Command) {
	if !c.HasSubCommands() {
		return
	}
	if c.Args != nil {
		// The command checks its own arguments (goodput sim, which has
		// subcommands too, names its own mistakes).
		for _, sub := range c.Commands() {
			rejectUnknownCommands(sub)
		}
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			hint := "see " + cmd.CommandPath() + " --help"
			if cmd.SuggestionsMinimumDistance <= 0 {
				cmd.SuggestionsMinimumDistance = 2 // cobra's own default
			}
			if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
				hint = "did you mean " + strings.Join(near, " or ") + "?"
			}
			return usageErr("unknown command %q for %q (%s)", args[0], cmd.CommandPath(), hint)
		}
		return nil
	}
	if c.RunE == nil && c.Run == nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
	for _, sub := range c.Commands() {
		rejectUnknownCommands(sub)
	}
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print goodput's version, the commit it was built from and its toolchain",
		Long: `version prints the module version and VCS revision of this build, as the Go
toolchain recorded them (or as stamped at link time), then the commit time,
the Go version and the platform. The first line is what --version prints and
what run headers and reports carry.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeVersion(env.Stdout, version.Get())
		},
	}
}

// writeVersion prints the build's description: the one-line form, then
// what is known of its origin.
func writeVersion(w io.Writer, i version.Info) error {
	fmt.Fprintf(w, "goodput %s\n", i)
	if i.Module != "" {
		fmt.Fprintf(w, "module:   %s\n", i.Module)
	}
	if i.Revision != "" {
		fmt.Fprintf(w, "revision: %s\n", i.Revision)
	}
	if i.Time != "" {
		fmt.Fprintf(w, "commit:   %s\n", i.Time)
	}
	_, err := fmt.Fprintf(w, "go:       %s %s\n", i.GoVersion, i.Platform)
	return err
}
