package autoscale

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/sweep"
)

func loadRecorded(t *testing.T) (promscrape.Series, Operating) {
	t.Helper()
	b, err := os.ReadFile("testdata/sim-overload-then-calm.server.json")
	if err != nil {
		t.Fatal(err)
	}
	var s promscrape.Series
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := sweep.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	op, err := FromSweep(sum)
	if err != nil {
		t.Fatal(err)
	}
	return s, op
}

// TestAdviceOnRecordedSeries replays the simulator's own metrics, recorded
// while 14 req/s arrived for 20 s (twice what one replica serves at the
// operating point: the queue grew to 87) and then 3 req/s: the advice
// rises to more replicas past the knee and falls back to one when the
// load drops.
func TestAdviceOnRecordedSeries(t *testing.T) {
	s, op := loadRecorded(t)
	if op.Load.Value != 8 || op.QPS < 6 || op.QPS > 7 {
		t.Fatalf("operating point %s at %v req/s, want concurrency 8 at about 6.6", op.Load, op.QPS)
	}
	readings := Replay(s, 10*time.Second)
	var desired []int
	var peak Advice
	for _, r := range readings {
		a, err := Advise(r, op, Policy{})
		if err != nil {
			desired = append(desired, 0)
			continue
		}
		desired = append(desired, a.Desired)
		if a.Desired > peak.Desired {
			peak = a
		}
	}
	t.Logf("advice after each scrape: %v", desired)
	// The overload: λ read at the server lies near the 14 req/s offered
	// (10 served, the rest queued), which needs 3 replicas of 6.6 req/s.
	if peak.Desired != 3 || peak.Basis != BasisArrivals || peak.ArrivalRate < 11 || peak.ArrivalRate > 17 || peak.Waiting < 10 {
		t.Errorf("peak advice %d (%s), λ %v req/s, %v waiting; want 3 replicas on the arrival rate, λ 11–17 req/s, a queue\n%s",
			peak.Desired, peak.Basis, peak.ArrivalRate, peak.Waiting, peak.Reason)
	}
	for _, want := range []string{"requests in the system", "Little's Law", "8 concurrent requests", "→ 3 replicas"} {
		if !strings.Contains(peak.Reason, want) {
			t.Errorf("the peak's reason lacks %q: %s", want, peak.Reason)
		}
	}
	// After the drop: one replica for the last 10 s of calm.
	last := readings[len(readings)-1]
	a, err := Advise(last, op, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Desired != 1 {
		t.Errorf("after the load dropped: %d replicas, want 1: %s", a.Desired, a.Reason)
	}
	// It rose before it fell: the first 3 comes before the final 1s.
	rose, fell := -1, -1
	for i, d := range desired {
		if d == 3 && rose < 0 {
			rose = i
		}
		if rose >= 0 && d == 1 && fell < 0 {
			fell = i
		}
	}
	if rose < 0 || fell < rose {
		t.Errorf("advice %v: want a rise to 3 and then a fall to 1", desired)
	}
	// Through a single replica's metrics, with a 20 % headroom and a cap,
	// the policy bounds the peak.
	if a, _ := Advise(readings[rose], op, Policy{Headroom: 0.2, Max: 2}); a.Desired != 2 || !strings.Contains(a.Reason, "capped at the maximum of 2") {
		t.Errorf("capped: %d: %s", a.Desired, a.Reason)
	}
}
