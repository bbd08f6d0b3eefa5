package merge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Waiter waits in a shared result directory until every shard of a run
// has finished: the merge step of a Kubernetes Job, started beside the
// shards, uses it to begin when they are done.
type Waiter struct {
	Dir   string
	Count int // shards in the run, indices 0 … Count−1
	// Timeout bounds the wait; past it the merge goes ahead with what is
	// there and reports the rest missing or partial.
	Timeout time.Duration
	// Poll is the time between looks at the directory; zero means
	// DefaultPoll.
	Poll time.Duration
	// Progress, when set, is called with a line each time the set of
	// finished shards changes.
	Progress func(string)
}

// DefaultPoll is how often a Waiter looks by default.
const DefaultPoll = 5 * time.Second

// Wait returns once every shard index has a file that ended with a
// trailer and was not interrupted (an interrupted or killed attempt may
// yet be retried), with an empty pending list; or, at the timeout, the
// indices still pending. It fails when the directory cannot be read, when
// it holds a shard of another count than Count, or when ctx ends.
func (w *Waiter) Wait(ctx context.Context) (pending []int, err error) {
	poll := w.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	deadline := time.Now().Add(w.Timeout)
	last := -1
	for {
		pending, err = w.pending()
		if err != nil {
			return nil, err
		}
		if len(pending) != last && w.Progress != nil {
			w.Progress(fmt.Sprintf("%d of %d shards finished%s", w.Count-len(pending), w.Count, waitingFor(pending)))
		}
		last = len(pending)
		if len(pending) == 0 || !time.Now().Before(deadline) {
			return pending, nil
		}
		t := time.NewTimer(min(poll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return pending, ctx.Err()
		case <-t.C:
		}
	}
}

func waitingFor(pending []int) string {
	if len(pending) == 0 {
		return ""
	}
	return "; waiting for " + shardList(pending)
}

// pending lists the shard indices without a finished file in the
// directory.
func (w *Waiter) pending() ([]int, error) {
	entries, err := os.ReadDir(w.Dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	done := make([]bool, w.Count)
	for _, e := range entries {
		if e.IsDir() || !isRecordsName(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(w.Dir, e.Name())
		st, err := peek(path)
		if err != nil || st.header == nil || st.header.Shard == nil {
			continue
		}
		if sh := st.header.Shard; sh.Count != w.Count && !st.header.Merged() {
			// The wait could only end at its timeout, and the merge then
			// reads the shards the directory holds, not these.
			return nil, fmt.Errorf("%s is shard %d of %d, not of the %d shards waited for: give --shards %d", path, sh.Index, sh.Count, w.Count, sh.Count)
		}
		if st.trailer == nil || st.trailer.Interrupted {
			continue
		}
		if sh := st.header.Shard; sh.Index >= 0 && sh.Index < w.Count {
			done[sh.Index] = true
		}
	}
	var pending []int
	for k, d := range done {
		if !d {
			pending = append(pending, k)
		}
	}
	return pending, nil
}
