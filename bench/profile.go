package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// profile POSTs to the server's profiler endpoint path (/start_profile or
// /stop_profile, vLLM's), as --profile asks, and records how it went in
// out: a note, or a warning when the server refused (a server without
// profiling answers 404) or did not answer. The run goes on either way.
func (s *server) profile(ctx context.Context, path string, out *Outcome) {
	note, err := s.postProfile(ctx, path)
	if err != nil {
		out.Warnings = append(out.Warnings, err.Error())
		return
	}
	out.Notes = append(out.Notes, note)
}

func (s *server) postProfile(ctx context.Context, path string) (string, error) {
	// Stopping a profile can take the server a while: it writes traces.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, nil)
	if err != nil {
		return "", fmt.Errorf("profiler: %w", err)
	}
	for k, v := range s.headers {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("profiler not reached: POST %s%s: %w", s.base, path, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("profiler refused: POST %s%s: %s (start the server with profiling enabled)", s.base, path, resp.Status)
	}
	return fmt.Sprintf("Profiler: POST %s: %s", path, resp.Status), nil
}
