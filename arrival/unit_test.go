package arrival

import (
	"math"
	"strings"
	"testing"
)

var inf = math.Inf(1)

// TestPlanNamesItsUnit: when each arrival is a session, the load line
// says sessions, their rate and their cap, never requests.
func TestPlanNamesItsUnit(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		// an open loop of sessions with a cap on concurrent users
		{"open", Config{RequestRate: 2, Burstiness: 1, NumPrompts: 10, MaxConcurrency: 4, Unit: "session"},
			[]string{"arrivals at 2 sessions/s", "stops after 10 sessions", "schedule: 10 sessions from", "at most 4 sessions at once"}},
		// a closed loop of users
		{"closed", Config{RequestRate: inf, Burstiness: 1, NumPrompts: 6, MaxConcurrency: 3, Unit: "task"},
			[]string{"closed loop: 3 concurrent tasks (users), each starting its next task when its last one ends", "stops after 6 tasks"}},
		// all at once
		{"burst", Config{RequestRate: inf, Burstiness: 1, NumPrompts: 5, Unit: "session"},
			[]string{"every session at once", "5 sessions"}},
		// requests, as before
		{"requests", Config{RequestRate: 2, Burstiness: 1, NumPrompts: 10},
			[]string{"arrivals at 2 req/s", "stops after 10 requests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.cfg.Plan()
			if err != nil {
				t.Fatal(err)
			}
			s := p.String()
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("plan %q lacks %q", s, w)
				}
			}
			if tt.cfg.Unit != "" && (strings.Contains(s, "requests") || strings.Contains(s, "req/s")) {
				t.Errorf("a plan of %ss speaks of requests: %q", tt.cfg.Unit, s)
			}
		})
	}
}
