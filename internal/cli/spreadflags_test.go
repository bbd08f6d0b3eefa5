package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// TestBenchSessionsOverTwoServers: --base-url twice spreads a multi-turn
// run; the summary has its session and endpoint blocks, the records their
// places, and each server's metrics file is written.
func TestBenchSessionsOverTwoServers(t *testing.T) {
	_, a := simtest.Serve(t, sim.Options{Seed: 1})
	_, b := simtest.Serve(t, sim.Options{Seed: 2})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", a, "--base-url", b, "--multi-turn", "--session-turns", "2",
		"--think-time", "10ms", "--num-prompts", "6", "--max-concurrency", "3", "--random-input-len", "32",
		"--random-output-len", "4", "--ignore-eos", "--result-dir", dir, "--run-name", "s", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"Load: closed loop: 3 concurrent sessions (users), each starting its next session when its last one ends",
		"Workload: synthetic sessions: 2 turns each",
		"Endpoints: 2, session: " + a + ", " + b,
		"Sessions:                                6 (12 turns; 0 with a failed turn)",
		"Maximum concurrent sessions:             3",
		"--------------------Endpoints---------------------",
		"Wrote " + filepath.Join(dir, "s.server-1.json") + " (" + a + ")",
		"Wrote " + filepath.Join(dir, "s.server-2.json") + " (" + b + ")",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	recs, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(recs), `"sid":`); n != 12 || strings.Count(string(recs), `"ep":`) != 12 {
		t.Errorf("%d records name their session, %d their endpoint; want 12 each", n, strings.Count(string(recs), `"ep":`))
	}
}

// TestBenchSpreadFromAFile: --base-url-file lists the endpoints.
func TestBenchSpreadFromAFile(t *testing.T) {
	_, a := simtest.Serve(t, sim.Options{Seed: 1})
	_, b := simtest.Serve(t, sim.Options{Seed: 2})
	path := filepath.Join(t.TempDir(), "urls")
	if err := os.WriteFile(path, []byte("# the fleet\n"+a+"\n"+b+"/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "bench", "--base-url-file", path, "--balance", "least-outstanding", "--num-prompts", "8",
		"--random-input-len", "16", "--random-output-len", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "Endpoints: 2, least-outstanding: "+a+", "+b) {
		t.Errorf("output lacks the endpoints line:\n%s", out)
	}
}

func TestBenchSpreadUsageErrors(t *testing.T) {
	urls := filepath.Join(t.TempDir(), "urls")
	if err := os.WriteFile(urls, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad think time", []string{"--multi-turn", "--think-time", "soon"}, "--think-time"},
		{"bad turns", []string{"--multi-turn", "--session-turns", "0"}, "--session-turns"},
		{"multi-turn custom", []string{"--multi-turn", "--dataset-name", "custom", "--dataset-path", urls}, "--multi-turn takes"},
		{"sessions without a file", []string{"--dataset-name", "sessions"}, "needs --dataset-path"},
		{"bad balance", []string{"--base-url", "http://127.0.0.1:9", "--base-url", "http://127.0.0.1:10", "--balance", "fastest"}, "--balance"},
		{"balance with one", []string{"--base-url", "http://127.0.0.1:9", "--balance", "session"}, "give --base-url more than once"},
		{"empty url file", []string{"--base-url-file", urls}, "holds no URL"},
		{"no replicas", []string{"--sim-replicas", "0"}, "--sim-replicas 0"},
		{"ids with sessions", []string{"--multi-turn", "--prompt-format", "ids", "--base-url", "http://127.0.0.1:9"}, "--prompt-format ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"bench", "--num-prompts", "2"}, tt.args...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 naming %q (stdout %q)", code, errOut, tt.want, out)
			}
		})
	}
}

// TestBenchDryRunOfSessions: the plan counts sessions; nothing is sent.
func TestBenchDryRunOfSessions(t *testing.T) {
	out, errOut, code := run(t, "", "bench", "--dry-run", "--dataset-name", "sessions", "--dataset-path", "../../session/testdata/sessions.jsonl",
		"--request-rate", "2", "--num-prompts", "5")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"arrivals at 2 sessions/s", "stops after 5 sessions", "sessions ../../session/testdata/sessions.jsonl: 3 sessions"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}
