package record

import (
	"errors"
	"math"
)

// SpreadTokens gives chunks the total of n tokens when more tokens were
// counted than chunks arrived (several tokens per chunk): each chunk keeps
// at least one and the surplus goes evenly, earlier chunks first. With
// n ≤ len(chunks) the chunks keep one token each.
func SpreadTokens(chunks []Chunk, n int) error {
	k := len(chunks)
	if k == 0 || n <= k {
		return nil
	}
	if n-k > math.MaxInt32 {
		return errors.New("output length out of range")
	}
	q, rem := n/k, n%k
	for j := range chunks {
		t := q
		if j < rem {
			t++
		}
		chunks[j].Tokens = int32(t)
	}
	return nil
}
