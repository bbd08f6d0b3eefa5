package cli

import (
	"strings"
	"testing"
)

// A goodput bench command keeps goodput's meaning under the sweep's
// appended vLLM flags: ignore_eos stays off for random prompts unless the
// command itself is a vLLM line (here by --random_input_len's
// underscore). The dry run shows each command as it would run.
func TestSweepServeKeepsAGoodputLineGoodputs(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		bench string
		want  bool
	}{
		{"goodput bench --num-prompts 8", true},
		{"goodput bench --num-prompts 8 --random_input_len 10", false},
		{"vllm bench serve --num-prompts 8", false},
	} {
		out, errOut, code := run(t, "", "sweep", "serve", "--dry-run", "--serve-cmd", "vllm serve m --port 8123",
			"--bench-cmd", tt.bench, "--num-runs", "1", "-o", dir, "-e", "x")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tt.bench, code, errOut)
		}
		if got := strings.Contains(out, " --ignore-eos=false "); got != tt.want || !strings.Contains(out, " --base-url http://127.0.0.1:8123 ") {
			t.Errorf("%s: --ignore-eos=false %v, want %v\n%s", tt.bench, got, tt.want, out)
		}
	}
}

// A sweep that went on past failures (--continue-on-error) still ends
// with a non-zero exit that names them.
func TestSweepServeFailuresExitNonZero(t *testing.T) {
	dir := t.TempDir()
	// The server command exits at once: the setting fails before it is ready.
	_, errOut, code := run(t, "", "sweep", "serve", "--serve-cmd", "false", "--after-bench-cmd", "true",
		"--bench-cmd", "vllm bench serve --num-prompts 1", "--num-runs", "1", "--continue-on-error", "-o", dir, "-e", "x")
	if code != ExitTool || !strings.Contains(errOut, "0 run(s) and 1 server setting(s) failed (see their …failure.json in ") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}
