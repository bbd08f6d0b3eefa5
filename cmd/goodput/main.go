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
	// what they measured. The second restores the default handler's effect and
	// exits at once. A command that only reads files ends at the first.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // next signal kills the process
		if atOnce {
			fmt.Fprintln(os.Stderr, "goodput: interrupted")
			os.Exit(cli.ExitInterrupt)
		}
	}()

	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, cli.Message(err))
	}
	return cli.Code(err)
}
