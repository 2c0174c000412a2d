package coheretest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// MaxTexts is the most texts Cohere accepts in one embed call.
const MaxTexts = 96

// models lists the embedding models the fake knows, with their dimensions.
var models = map[string]int{
	"embed-english-v3.0":            1024,
	"embed-multilingual-v3.0":       1024,
	"embed-english-light-v3.0":      384,
	"embed-multilingual-light-v3.0": 384,
}

// Failure is an error response the server sends instead of embeddings.
type Failure struct {
	// Status is the HTTP status code (429, 500, 503, 401, 400, …).
	Status int
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Message is the JSON "message"; a default is used when empty.
	Message string
}

// Server is an httptest server answering POST /v2/embed and POST
// /v2/rerank (rerank.go) like Cohere's API.
// Its methods are safe for concurrent use.
type Server struct {
	// URL is the server root, to pass as the client's base URL.
	URL string
	// Key is the API key the server accepts as a bearer token.
	Key string

	srv *httptest.Server

	mu       sync.Mutex
	latency  time.Duration
	failures []Failure
	requests int
	texts    []int
	lastReq  Request
	rerankOK []RerankRequest
	short    int
	tamper   func(index int, score float64) float64
	// chat state (chat.go)
	replies  []ChatReply
	lastChat ChatRequest
	// structured answers chats that ask for structured output.
	structured func(ChatRequest) string
	chats      int
}

// Request is the body of an embed call, as the server decoded it.
type Request struct {
	Model          string   `json:"model"`
	InputType      string   `json:"input_type"`
	Texts          []string `json:"texts"`
	EmbeddingTypes []string `json:"embedding_types"`
	Truncate       string   `json:"truncate,omitempty"`
}

// NewServer starts a fake Cohere server on a loopback port that accepts key.
// Close it when done.
func NewServer(key string) *Server {
	s := &Server{Key: key}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// SetLatency makes every following request wait d before answering (or
// until the client goes away).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// Fail queues failures: the next len(f) requests get them, in order.
func (s *Server) Fail(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f...)
}

// Requests is the number of requests received so far (including failed ones).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// BatchSizes lists the number of texts of every successful embed call.
func (s *Server) BatchSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.texts...)
}

// LastRequest returns the body of the last well-formed request.
func (s *Server) LastRequest() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastReq
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	latency := s.latency
	var fail *Failure
	if len(s.failures) > 0 {
		f := s.failures[0]
		s.failures = s.failures[1:]
		fail = &f
	}
	s.mu.Unlock()

	// Read the body first: net/http only notices a client that went away
	// (and cancels r.Context) once the body has been consumed.
	body, readErr := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if r.Method != http.MethodPost || (r.URL.Path != "/v2/embed" && r.URL.Path != "/v2/rerank" && r.URL.Path != "/v2/chat") {
		writeError(w, http.StatusNotFound, "", "not found: "+r.Method+" "+r.URL.Path)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key || s.Key == "" {
		writeError(w, http.StatusUnauthorized, "", "invalid api token")
		return
	}
	if fail != nil {
		msg := fail.Message
		if msg == "" {
			msg = http.StatusText(fail.Status)
		}
		writeError(w, fail.Status, fail.RetryAfter, msg)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusBadRequest, "", "content-type must be application/json")
		return
	}
	switch r.URL.Path {
	case "/v2/rerank":
		s.rerank(w, body)
		return
	case "/v2/chat":
		s.chat(w, r, body)
		return
	}
	var req Request
	if readErr != nil {
		writeError(w, http.StatusBadRequest, "", "cannot read body: "+readErr.Error())
		return
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "", "invalid request body: "+err.Error())
		return
	}
	dim, ok := models[req.Model]
	switch {
	case !ok:
		writeError(w, http.StatusBadRequest, "", fmt.Sprintf("model '%s' not found, make sure the correct model ID was used", req.Model))
		return
	case req.InputType == "":
		writeError(w, http.StatusBadRequest, "", "input_type is required for embed v3 models")
		return
	case len(req.Texts) == 0:
		writeError(w, http.StatusBadRequest, "", "texts must not be empty")
		return
	case len(req.Texts) > MaxTexts:
		writeError(w, http.StatusBadRequest, "", fmt.Sprintf("too many texts: got %d, the maximum is %d", len(req.Texts), MaxTexts))
		return
	case len(req.EmbeddingTypes) != 1 || req.EmbeddingTypes[0] != "float":
		writeError(w, http.StatusBadRequest, "", `the fake supports embedding_types ["float"] only`)
		return
	}
	s.mu.Lock()
	s.texts = append(s.texts, len(req.Texts))
	s.lastReq = req
	s.mu.Unlock()

	vecs := make([][]float32, len(req.Texts))
	tokens := 0
	for i, t := range req.Texts {
		vecs[i] = Vector(t, dim)
		tokens += len(strings.Fields(t))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":            "fake-embed-id",
		"response_type": "embeddings_by_type",
		"embeddings":    map[string]any{"float": vecs},
		"texts":         req.Texts,
		"meta": map[string]any{
			"api_version":  map[string]any{"version": "2"},
			"billed_units": map[string]any{"input_tokens": tokens},
		},
	})
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
