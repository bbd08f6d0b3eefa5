package serverview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Slots are a llama.cpp server's slots as its GET /slots lists them: how
// many sequences it can decode together (--parallel) and how many are
// busy now. Its /metrics count busy slots and deferred requests, not the
// slots there are.
type Slots struct {
	Total int `json:"total"`
	Busy  int `json:"busy"`
}

// ReadSlots reads the slots of the llama.cpp server whose /metrics is at
// metricsURL, within timeout (zero: 5 s), sending header (the API key of
// a server started with --api-key, which guards /slots too). client nil
// means http.DefaultClient.
func ReadSlots(ctx context.Context, client *http.Client, metricsURL string, timeout time.Duration, header http.Header) (*Slots, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	url := strings.TrimSuffix(metricsURL, "/metrics") + "/slots"
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var list []struct {
		Busy bool `json:"is_processing"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	s := &Slots{Total: len(list)}
	for _, sl := range list {
		if sl.Busy {
			s.Busy++
		}
	}
	return s, nil
}
