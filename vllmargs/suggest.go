package vllmargs

// nearest returns the name in names closest to name by edit distance, or ""
// when none is close enough to be a plausible typo: within a third of the
// name's length, and at least 2.
func nearest(name string, names []string) string {
	best, bestD := "", max(2, len(name)/3)+1
	for _, n := range names {
		if d := distance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes (flag
// names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
