package workload

import "testing"

// The ids of vLLM's hf list read as ids even with a dot in their name; a
// path with a dot is no id.
func TestHubID(t *testing.T) {
	for s, want := range map[string]bool{
		"AI-MO/NuminaMath-1.5":       true,
		"AI-MO/aimo-validation-aime": true,
		"org/name":                   true,
		"data/train.jsonl":           false,
		"./org/name":                 false,
		"name":                       false,
	} {
		if got := hubID(s); got != want {
			t.Errorf("hubID(%q) = %v, want %v", s, got, want)
		}
	}
}
