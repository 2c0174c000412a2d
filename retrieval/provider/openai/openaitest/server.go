// Package openaitest is an in-process stand-in for OpenAI's embeddings
// endpoint (POST /v1/embeddings). Vectors come from fakeapi.Vector, so a
// question embedded here and searched in the fake Qdrant
// (retrieval/store/qdrant/qdranttest) gets meaningful hits when the sizes agree.
package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

// MaxInputs is the most inputs OpenAI accepts in one call.
const MaxInputs = 2048

// models lists the models the fake knows: native size and whether the
// "dimensions" parameter is accepted.
var models = map[string]struct {
	dim       int
	shortable bool
}{
	"text-embedding-3-small": {1536, true},
	"text-embedding-3-large": {3072, true},
	"text-embedding-ada-002": {1536, false},
}

// Failure is an answer the server sends instead of embeddings.
type Failure struct {
	// Status is the HTTP status code (429, 500, 401, …).
	Status int
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Message is the JSON error message; a default is used when empty.
	Message string
	// Raw, when set, is sent as the body verbatim with ContentType (an
	// HTML page, truncated JSON), with Status (200 when 0).
	Raw         string
	ContentType string
	// Dim, when set, answers normally but with vectors of this size.
	Dim int
}

// Server is an httptest server speaking OpenAI's embeddings API. Its
// methods are safe for concurrent use.
type Server struct {
	// Endpoint is the server's URL (the API root including /v1, the
	// client's base URL) and the key it accepts as a bearer token (Close
	// shuts it down). With Key "" the server is a local one that needs no
	// key: it accepts requests with no Authorization header (and refuses
	// any other).
	fakeapi.Endpoint

	// Calls counts requests, queues failures, delays answers and keeps
	// the last request (SetLatency, Fail, Requests, BatchSizes,
	// LastRequest).
	fakeapi.Calls[Failure, Request]

	// structured answers chats that ask for structured output (Structured).
	structured fakeapi.Structured[ChatRequest]
	mu         sync.Mutex
	headers    http.Header
	// ChatLog queues replies and records chats (Reply, LastChat, Chats;
	// chat.go). Chats with no reply queued get the default reply: the
	// first sentence under the context's first [Source N] marker (or of
	// the selection), cited "[Source N]".
	fakeapi.ChatLog[ChatRequest, ChatReply]
}

// Request is the body of an embeddings call, as decoded.
type Request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
}

// NewServer starts a fake OpenAI server on a loopback port that accepts key.
func NewServer(key string) *Server {
	s := &Server{}
	s.Endpoint = fakeapi.Start(key, "/v1", s.handle)
	return s
}

// LastHeaders are the headers of the last request.
func (s *Server) LastHeaders() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers.Clone()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.headers = r.Header.Clone()
	s.mu.Unlock()
	body, fail, ok, readErr := s.Receive(r, 64<<20)
	if !ok {
		return
	}
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/embeddings" && r.URL.Path != "/v1/chat/completions") {
		writeError(w, http.StatusNotFound, "", "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error")
		return
	}
	if got := r.Header.Get("Authorization"); (s.Key == "" && got != "") || (s.Key != "" && got != "Bearer "+s.Key) {
		writeError(w, http.StatusUnauthorized, "", "Incorrect API key provided.", "invalid_request_error")
		return
	}
	if fail != nil && fail.Dim == 0 {
		if fail.Raw != "" {
			fakeapi.WriteRaw(w, fail.Status, fail.ContentType, fail.Raw)
			return
		}
		msg := fail.Message
		if msg == "" {
			msg = http.StatusText(fail.Status)
		}
		writeError(w, fail.Status, fail.RetryAfter, msg, "server_error")
		return
	}
	if r.URL.Path == "/v1/chat/completions" {
		s.chat(w, r, body)
		return
	}
	s.embed(w, body, readErr, fail)
}

// embed answers POST /v1/embeddings; fail, when set, asks for vectors of
// its Dim.
func (s *Server) embed(w http.ResponseWriter, body []byte, readErr error, fail *Failure) {
	var req Request
	if readErr != nil || json.Unmarshal(body, &req) != nil || len(req.Input) == 0 {
		writeError(w, http.StatusBadRequest, "", "'input' must be a non-empty array of strings", "invalid_request_error")
		return
	}
	m, ok := models[req.Model]
	if !ok {
		writeError(w, http.StatusNotFound, "", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model), "invalid_request_error")
		return
	}
	if len(req.Input) > MaxInputs {
		writeError(w, http.StatusBadRequest, "", fmt.Sprintf("'input' must have at most %d items", MaxInputs), "invalid_request_error")
		return
	}
	dim := m.dim
	if req.Dimensions > 0 {
		if !m.shortable || req.Dimensions > m.dim {
			writeError(w, http.StatusBadRequest, "", fmt.Sprintf("This model does not support specifying dimensions of %d.", req.Dimensions), "invalid_request_error")
			return
		}
		dim = req.Dimensions
	}
	if fail != nil && fail.Dim > 0 {
		dim = fail.Dim
	}
	s.Record(req, len(req.Input))
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(req.Input))
	for i, t := range req.Input {
		data[i] = item{Object: "embedding", Index: i, Embedding: fakeapi.Vector(t, dim)}
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg, typ string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	fakeapi.WriteJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}
