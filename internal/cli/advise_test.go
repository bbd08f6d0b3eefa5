package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

const adviseSweep = "../../autoscale/testdata/sweep.json"

// TestWatchAdviseOnce: an idle simulator needs one replica, and the advice
// says why.
func TestWatchAdviseOnce(t *testing.T) {
	url, _, stop := startSimCmd(t, "--port", "0")
	defer stop()
	stdout, stderr, code := run(t, "", "watch", "--advise", "--from", adviseSweep, "--once", "--interval", "100ms", "--window", "1s", "--format", "json", url)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a struct {
		OK      bool   `json:"ok"`
		Desired int    `json:"desired_replicas"`
		Current int    `json:"current_replicas"`
		Basis   string `json:"basis"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if !a.OK || a.Desired != 1 || a.Current != 1 || a.Basis != "idle" || !strings.Contains(a.Reason, "nothing running or waiting") {
		t.Errorf("advice on an idle server: %+v", a)
	}
}

var adviceURL = regexp.MustCompile(`serving goodput_desired_replicas at (http://127\.0\.0\.1:\d+)/metrics`)

// TestWatchAdviseListen: the exporter serves the gauge an autoscaler reads
// and the advice as JSON.
func TestWatchAdviseListen(t *testing.T) {
	url, _, stop := startSimCmd(t, "--port", "0")
	defer stop()
	out, errOut := &simOutput{}, &simOutput{}
	env := &Env{Stdout: out, Stderr: errOut, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs([]string{"watch", "--advise", "--from", adviseSweep, "--listen", "127.0.0.1:0", "--interval", "100ms", "--window", "1s", "--plain", url})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(15 * time.Second)
	var base string
	for {
		if m := adviceURL.FindStringSubmatch(errOut.String()); m != nil && strings.Contains(out.String(), "desired 1") {
			base = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no advice served:\n%s\n%s", out, errOut)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fams, err := scrapeFamilies(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if g := fams["goodput_desired_replicas"]; g == nil || g.GetMetric()[0].GetGauge().GetValue() != 1 {
		t.Errorf("goodput_desired_replicas: %v", g)
	}
	if g := fams["goodput_advise_replica_capacity_requests_per_second"]; g == nil || g.GetMetric()[0].GetGauge().GetValue() < 6 {
		t.Errorf("replica capacity: %v", g)
	}
	resp, err := http.Get(base + "/advice")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a["ok"] != true {
		t.Errorf("/advice: %v %v", err, a)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch still running 10 s after cancel")
	}
}

func TestWatchAdviseUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"advise without a sweep", []string{"watch", "--advise", "http://127.0.0.1:1"}, ExitUsage, "give --from"},
		{"from without advise", []string{"watch", "--from", adviseSweep, "http://127.0.0.1:1"}, ExitUsage, "--from needs --advise"},
		{"several URLs without advise", []string{"watch", "http://a:1", "http://b:1"}, ExitUsage, "want one URL"},
		{"a missing sweep", []string{"watch", "--advise", "--from", "nope.json", "http://127.0.0.1:1"}, ExitTool, "--from"},
		{"a bad cap", []string{"watch", "--advise", "--from", adviseSweep, "--min-replicas", "3", "--max-replicas", "2", "http://127.0.0.1:1"}, ExitUsage, "--max-replicas"},
		{"no server answers", []string{"watch", "--advise", "--from", adviseSweep, "--once", "--interval", "50ms", "--timeout", "200ms", "http://127.0.0.1:1"}, ExitTool, "no server gave"},
	} {
		_, stderr, code := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q: %s", tc.name, code, tc.code, tc.want, stderr)
		}
	}
}
