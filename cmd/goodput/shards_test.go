package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// startSim runs `goodput sim` on a free loopback port until the test ends
// and returns its base URL.
func startSim(t *testing.T) string {
	t.Helper()
	cmd := goodput("sim", "--port", "0", "--seed", "1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:[0-9]+)$`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("goodput sim did not say where it serves")
		return ""
	}
}

// shardArgs is the one command line every shard runs, as the pods of an
// Indexed Job do; each takes its shard from $JOB_COMPLETION_INDEX.
func shardArgs(url, dir string, rate, prompts int, start time.Time) []string {
	return []string{"bench", "--base-url", url, "--request-rate", fmt.Sprint(rate), "--arrival", "constant",
		"--num-prompts", fmt.Sprint(prompts), "--random-input-len", "32", "--random-output-len", "16", "--ignore-eos",
		"--seed", "11", "--shards", "4", "--start-at", start.Format(time.RFC3339Nano), "--result-dir", dir, "--quiet"}
}

func shard(k int, args []string) *exec.Cmd {
	cmd := goodput(args...)
	cmd.Env = append(cmd.Env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k), fmt.Sprintf("NODE_NAME=node-%d", k))
	return cmd
}

// readAll returns a record file's header and records.
func readAll(t *testing.T, path string) (record.Header, []record.Record) {
	t.Helper()
	f, err := runfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []record.Record
	for {
		var r record.Record
		if err := f.Next(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return f.Header(), recs
}

// mergeJSON runs goodput merge on dir and returns its exit code and the
// summary and shard report it printed.
func mergeJSON(t *testing.T, args ...string) (int, json.RawMessage, map[string]any) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := goodput(append([]string{"merge", "--format", "json"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Merge  map[string]any  `json:"merge"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("merge printed no JSON (%v): %s\n%s", err, stdout.String(), stderr.String())
	}
	return code, out.Result, out.Merge
}

// Four shard processes against one goodput sim, started with --start-at,
// send exactly the planned schedule between them, and their merge is the
// summary of all their records together.
func TestFourShardsMergeExactly(t *testing.T) {
	url := startSim(t)
	dir := t.TempDir()
	// Time for four processes to start on a busy machine: a shard that
	// began late would skip part of its schedule.
	start := time.Now().Add(6 * time.Second).Round(0).UTC()
	args := shardArgs(url, dir, 40, 120, start)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for k := range 4 {
		cmd := shard(k, args)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	for k, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", k, err, outs[k])
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	slices.Sort(files)
	if len(files) != 4 {
		t.Fatalf("records %v, want 4 files", files)
	}

	// The union of the shards' sequence numbers is the planned schedule,
	// each request at its planned time from the agreed start.
	plan, err := arrival.Config{RequestRate: 40, Arrival: arrival.KindConstant, Burstiness: 1, NumPrompts: 120, Seed: 11}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	var concat bytes.Buffer
	for k, path := range files {
		h, recs := readAll(t, path)
		if !h.Start.Equal(start) || h.Shard == nil || h.Shard.Index != k || h.Node != fmt.Sprintf("node-%d", k) || !h.Clock.Measured() {
			t.Errorf("%s: header start %v shard %+v node %q clock %+v", path, h.Start, h.Shard, h.Node, h.Clock)
		}
		if k == 0 {
			h.Shard = nil
			// The header only: the records follow as they are read.
			if _, err := record.NewWriter(&concat, h); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range recs {
			if seen[r.Seq] || r.Seq%4 != int64(k) {
				t.Errorf("seq %d in shard %d's file (seen before: %v)", r.Seq, k, seen[r.Seq])
			}
			seen[r.Seq] = true
			if r.Scheduled != int64(plan.Open.Offsets[r.Seq]) || !r.OK() {
				t.Errorf("seq %d scheduled at %v, planned %v; error %q", r.Seq, time.Duration(r.Scheduled), plan.Open.Offsets[r.Seq], r.Msg)
			}
			concat.Write(append(record.AppendJSON(nil, &r), '\n'))
		}
	}
	if len(seen) != plan.Open.Len() {
		t.Errorf("%d distinct requests, the plan has %d", len(seen), plan.Open.Len())
	}

	// goodput merge on the directory equals goodput analyze of one file
	// holding every record.
	code, merged, rep := mergeJSON(t, dir, "--output", filepath.Join(dir, "merged.out.jsonl"))
	if code != 0 || rep["shards"] != 4.0 || rep["planned"] != 120.0 || rep["distinct"] != 120.0 || rep["missing"] != nil || rep["partial"] != nil {
		t.Fatalf("merge exit %d, report %v", code, rep)
	}
	one := filepath.Join(t.TempDir(), "all.jsonl")
	if err := os.WriteFile(one, concat.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd := goodput("analyze", one, "--format", "json")
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var want, got any
	json.Unmarshal(stdout.Bytes(), &want)
	json.Unmarshal(merged, &got)
	if !jsonEqual(want, got) {
		t.Errorf("merged summary\n%s\nsummary of the concatenated records\n%s", merged, stdout.String())
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A shard killed mid-run is reported partial by index, with what it
// measured; its retry, started late, skips what has passed and goes to
// a file of its own.
func TestKilledShardIsReportedPartial(t *testing.T) {
	url := startSim(t)
	dir := t.TempDir()
	start := time.Now().Add(4 * time.Second).Round(0).UTC()
	args := shardArgs(url, dir, 20, 160, start) // 8 s of schedule
	// Each shard sends every 200 ms; replies of 96 tokens take about
	// 0.6 s on the simulator, so a request is always in flight when the
	// shard is killed, and the retry, which skips what was due, cannot
	// make up for it: the shard stays partial, whatever the instant.
	args[slices.Index(args, "--random-output-len")+1] = "96"
	var cmds []*exec.Cmd
	for k := range 4 {
		cmd := shard(k, args)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	time.Sleep(time.Until(start.Add(2 * time.Second)))
	if err := cmds[2].Process.Kill(); err != nil { // SIGKILL: no trailer, as a pod killed for memory
		t.Fatal(err)
	}
	cmds[2].Wait()
	retry := shard(2, args)
	var rout bytes.Buffer
	retry.Stdout, retry.Stderr = &rout, &rout
	if err := retry.Run(); err != nil {
		t.Fatalf("retry: %v\n%s", err, rout.String())
	}
	if !strings.Contains(rout.String(), "shard 2 of 4 started") || !strings.Contains(rout.String(), "were not sent") {
		t.Errorf("the retry does not say it started late:\n%s", rout.String())
	}
	for k, cmd := range cmds {
		if k != 2 {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("shard %d: %v", k, err)
			}
		}
	}
	code, _, rep := mergeJSON(t, dir)
	if code != 1 || !slices.Equal(asInts(rep["partial"]), []int{2}) || rep["missing"] != nil {
		t.Fatalf("merge exit %d (want 1), partial %v, missing %v", code, rep["partial"], rep["missing"])
	}
	states := rep["shard_states"].([]any)
	why := states[2].(map[string]any)["why"].(string)
	for _, want := range []string{"attempt 0 (", "was cut off after", "attempt 1 (", "skipped the", "planned requests were never measured"} {
		if !strings.Contains(why, want) {
			t.Errorf("shard 2's reason lacks %q: %s", want, why)
		}
	}
	if m := states[2].(map[string]any)["measured"].(float64); m < 5 || m >= 40 {
		t.Errorf("shard 2 measured %v of 40", m)
	}
	for _, k := range []int{0, 1, 3} {
		if s := states[k].(map[string]any); s["partial"] != false || s["measured"] != 40.0 {
			t.Errorf("shard %d: %v", k, s)
		}
	}
}

func asInts(v any) []int {
	var out []int
	for _, x := range v.([]any) {
		out = append(out, int(x.(float64)))
	}
	return out
}
