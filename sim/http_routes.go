package sim

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goodput-dev/goodput/tokenizer"
)

// routes registers the endpoints. Methods are checked by the handlers so
// that a wrong method gets a JSON error like every other failure.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.Handle("/v1/completions", s.method(http.MethodPost, s.handleCompletions))
	s.mux.Handle("/v1/chat/completions", s.method(http.MethodPost, s.handleChat))
	s.mux.Handle("/v1/responses", s.method(http.MethodPost, s.handleResponses))
	s.mux.Handle("/v1/models", s.method(http.MethodGet, s.handleModels))
	s.mux.Handle("/health", s.method(http.MethodGet, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	s.mux.Handle("/version", s.method(http.MethodGet, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": "goodput-sim"})
	}))
	// vLLM serves these with VLLM_SERVER_DEV_MODE=1; `vllm bench sweep
	// serve` (and goodput sweep serve) calls them between runs. The
	// simulator has no multimodal or encoder cache: those two succeed
	// with nothing to do.
	s.mux.Handle("/reset_prefix_cache", s.method(http.MethodPost, func(w http.ResponseWriter, r *http.Request) {
		s.resetPrefixCache()
		w.WriteHeader(http.StatusOK)
	}))
	for _, p := range []string{"/reset_mm_cache", "/reset_encoder_cache"} {
		s.mux.Handle(p, s.method(http.MethodPost, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
		}))
	}
	s.mux.Handle("/tokenize", s.method(http.MethodPost, s.handleTokenize))
	s.mux.Handle("/detokenize", s.method(http.MethodPost, s.handleDetokenize))
	metrics := promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{})
	s.mux.Handle("/metrics", s.method(http.MethodGet, metrics.ServeHTTP))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

// ServeHTTP answers vLLM's OpenAI-compatible API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.apiKey != "" && strings.HasPrefix(r.URL.Path, "/v1") && !s.authorized(r) {
		// vLLM's exact answer to a missing or wrong key.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":"Unauthorized"}`)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.apiKey)) == 1
}

// method admits only requests with the given method, and bounds POST bodies.
func (s *Server) method(m string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m && !(m == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", m)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s: use %s", r.Method, r.URL.Path, m))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.maxBody)
		}
		h(w, r)
	})
}

// readBody decodes r's JSON body into v. On failure it answers the client
// (400, or 413 for an oversized body) and returns false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	err := decodeJSON(r.Body, v)
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit))
		return false
	}
	writeError(w, http.StatusBadRequest, err.Error())
	return false
}

// checkModel answers 404, as vLLM does, when the request names another
// model. An empty name means the served one.
func (s *Server) checkModel(w http.ResponseWriter, model string) bool {
	if model == "" || model == s.cfg.model {
		return true
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("the model `%s` does not exist (this server serves `%s`)", model, s.cfg.model))
	return false
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelCard `json:"data"`
}

type modelCard struct {
	ID          string  `json:"id"`
	Object      string  `json:"object"`
	Created     int64   `json:"created"`
	OwnedBy     string  `json:"owned_by"`
	Root        string  `json:"root"`
	Parent      *string `json:"parent"`
	MaxModelLen int     `json:"max_model_len"`
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []modelCard{{
		ID: s.cfg.model, Object: "model", Created: s.created, OwnedBy: "vllm",
		Root: s.cfg.model, MaxModelLen: s.cfg.maxModelLen,
	}}})
}

type tokenizeResponse struct {
	Count       int      `json:"count"`
	MaxModelLen int      `json:"max_model_len"`
	Tokens      []int    `json:"tokens"`
	TokenStrs   []string `json:"token_strs"`
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if !s.readBody(w, r, &req) || !s.checkModel(w, req.Model) {
		return
	}
	var ids []int
	var err error
	switch {
	case req.Messages != nil && req.Prompt != nil:
		err = errors.New("give either prompt or messages, not both")
	case req.Messages != nil:
		ids, err = chatPrompt(req.Messages)
	default:
		ids, err = promptIDs(req.Prompt, s.cfg.vocab)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, tokenizeResponse{Count: len(ids), MaxModelLen: s.cfg.maxModelLen, Tokens: ids})
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var req detokenizeRequest
	if !s.readBody(w, r, &req) || !s.checkModel(w, req.Model) {
		return
	}
	if err := checkTokenIDs(req.Tokens, s.cfg.vocab); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": tokenizer.Decode(req.Tokens)})
}
