// Command goodput measures LLM serving: see the README or `goodput --help`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/goodput-dev/goodput/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	env := &cli.Env{
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Stdin:      os.Stdin,
		IsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
	}
	root := cli.NewRoot(env)
	atOnce := cli.StopsAtOnce(root, os.Args[1:])

	// The first Ctrl-C cancels ctx: commands stop scheduling, drain and write
	// what they measured. The second exits at once. A command that only
	// reads files ends at the first. The second is caught rather than left
	// to the default handler: a process started with SIGINT ignored (a
	// shell's background job, nohup) would otherwise ignore it and wait out
	// the drain.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-sigs
		if atOnce {
			fmt.Fprintln(os.Stderr, "goodput: interrupted")
			os.Exit(cli.ExitInterrupt)
		}
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "goodput: interrupted again: exiting at once")
		os.Exit(cli.ExitInterrupt)
	}()

	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, cli.Message(err))
	}
	return cli.Code(err)
}
