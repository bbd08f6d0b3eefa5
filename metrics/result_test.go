package metrics

import "testing"

// The most common failure comes with its first message; a tie goes to
// the first kind by name, so that the choice does not move between runs.
func TestMostCommonError(t *testing.T) {
	c := Counts{Errors: map[string]int64{"timeout": 3, "http": 3, "reset": 1},
		ErrorExamples: map[string]string{"http": "http 503 Service Unavailable", "timeout": "timed out"}}
	if k, n, ex := c.MostCommonError(); k != "http" || n != 3 || ex != "http 503 Service Unavailable" {
		t.Errorf("got %q %d %q, want http 3 with its message", k, n, ex)
	}
	if k, n, ex := (Counts{}).MostCommonError(); k != "" || n != 0 || ex != "" {
		t.Errorf("no failures: %q %d %q", k, n, ex)
	}
}
