package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// server talks to the target outside the measured requests: readiness, the
// model list and the tokenizer.
type server struct {
	client  *http.Client
	base    string // base URL without a trailing slash or /v1
	headers http.Header
}

func newServer(client *http.Client, baseURL string, headers http.Header) *server {
	base := strings.TrimRight(baseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	return &server{client: client, base: base, headers: headers}
}

func (s *server) get(ctx context.Context, path string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	for k, v := range s.headers {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// errNoReadyRoute says the server answered, but has neither /health nor
// /v1/models: it is up, and nothing tells more about its readiness.
var errNoReadyRoute = errors.New("no readiness route")

// waitReady polls /health, then /v1/models, until one answers 2xx or
// timeout passes. A zero timeout checks once. A server that answers both
// with 404 or 405 is up but has neither route (a gateway that forwards
// only the generation endpoint): waitReady then returns errNoReadyRoute
// at once, which callers may take as ready.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		absent := 0
		for _, path := range []string{"/health", "/v1/models"} {
			resp, err := s.get(ctx, path)
			if err != nil {
				last = err
				continue
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
				absent++
			}
			last = fmt.Errorf("GET %s%s: %s", s.base, path, resp.Status)
		}
		if absent == 2 {
			return errNoReadyRoute
		}
		if errors.Is(last, context.Canceled) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return fmt.Errorf("server %s is not ready (waited %v; raise --ready-check-timeout to wait longer): %w", s.base, timeout, last)
}

// firstModel returns the first model id of /v1/models.
func (s *server) firstModel(ctx context.Context) (string, error) {
	resp, err := s.get(ctx, "/v1/models")
	if err != nil {
		return "", fmt.Errorf("ask %s/v1/models for a model (or give --model): %w", s.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("GET %s/v1/models: %s (give --model)", s.base, resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&list); err != nil {
		return "", fmt.Errorf("GET %s/v1/models: %w (give --model)", s.base, err)
	}
	if len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", fmt.Errorf("GET %s/v1/models lists no model (give --model)", s.base)
	}
	return list.Data[0].ID, nil
}

// errNoTokenizer means the server has no /tokenize endpoint.
var errNoTokenizer = errors.New("server has no /tokenize")

// tokenCounter returns a function counting tokens with the server's
// /tokenize (vLLM and SGLang shape), or errNoTokenizer when a probe shows
// there is none.
func (s *server) tokenCounter(ctx context.Context, model string) (func(string) (int, error), error) {
	count := func(text string) (int, error) {
		body, _ := json.Marshal(map[string]any{"model": model, "prompt": text, "add_special_tokens": false})
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(cctx, http.MethodPost, s.base+"/tokenize", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		for k, v := range s.headers {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return 0, errNoTokenizer
		}
		if resp.StatusCode/100 != 2 {
			return 0, fmt.Errorf("POST %s/tokenize: %s", s.base, resp.Status)
		}
		var out struct {
			Count  *int  `json:"count"`
			Tokens []int `json:"tokens"`
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&out); err != nil {
			return 0, fmt.Errorf("POST %s/tokenize: %w", s.base, err)
		}
		if out.Count != nil {
			return *out.Count, nil
		}
		return len(out.Tokens), nil
	}
	if _, err := count("hello world"); err != nil {
		return nil, err
	}
	return count, nil
}
