package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/workedexample"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

func exampleResult(t *testing.T, name string, edit func(*record.Record)) *metrics.Result {
	t.Helper()
	ex, err := workedexample.Read("../metrics/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSummary(metrics.Options{SLO: "ttft<=500ms,tpot<=50ms", Good: func(q metrics.Request) bool {
		return q.TTFT <= 500*time.Millisecond && (!q.HasTPOT || q.TPOT <= 50*time.Millisecond)
	}})
	for _, r := range ex.Records() {
		if edit != nil {
			edit(r)
		}
		s.Add(r)
	}
	return s.Close()
}

// TestTextShowsSessionsTasksAndEndpoints: the summary gains a block for
// each, with the worked examples' figures.
func TestTextShowsSessionsTasksAndEndpoints(t *testing.T) {
	tests := []struct {
		name string
		res  *metrics.Result
		opts TextOptions
		want []string
	}{
		// the sessions worked example: 1 of 3 sessions good, 5.83 tok/s
		{"sessions", exampleResult(t, "sessions_worked_example.txt", nil), TextOptions{},
			[]string{"Sessions:                                3 (7 turns; 0 with a failed turn)",
				"Median session duration (s):             1.00",
				"Good sessions (every request good):      1 of 3 (33.33%)",
				"Session goodput (tok/s):                 5.83",
				"  Turn 2 (3):                            76.67 / 70.00 / 99.40"}},
		// the tasks worked example: 2 of 3 tasks good, 14.02 tok/s
		{"tasks", exampleResult(t, "tasks_worked_example.txt", nil), TextOptions{},
			[]string{"Tasks:                                   3 (7 calls; 0 with a failed call)",
				"Median task completion (s):              0.96",
				"Good tasks (every request good):         2 of 3 (66.67%)",
				"Task goodput (tok/s):                    14.02"}},
		// the same calls over two endpoints, by task
		{"endpoints", exampleResult(t, "tasks_worked_example.txt", func(r *record.Record) {
			r.Endpoint = map[string]string{"T1": "http://a", "T2": "http://b", "T3": "http://b"}[r.Task]
		}), TextOptions{},
			[]string{"http://a:                                4 requests, 0 failed;", "http://b:                                3 requests, 0 failed;"}},
		// a rate and a cap that count sessions say so
		{"unit", exampleResult(t, "sessions_worked_example.txt", nil), TextOptions{VLLM: &VLLMLines{RequestRate: 2, MaxConcurrency: new(int), Unit: "session"}},
			[]string{"Maximum concurrent sessions:             0", "Session rate configured (per s):         2.00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tt.res, tt.opts); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
	var plain bytes.Buffer
	if err := Text(&plain, &metrics.Result{}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, block := range []string{"Sessions", "Agent tasks", "Endpoints"} {
		if strings.Contains(plain.String(), block) {
			t.Errorf("a run without %s shows their block", block)
		}
	}
}
