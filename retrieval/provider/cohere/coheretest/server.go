// Package coheretest is an in-process stand-in for Cohere's embed, rerank
// and chat endpoints (POST /v2/embed, /v2/rerank, /v2/chat). Its vectors
// come from fakeapi.Vector, which the fake Qdrant (qdranttest) embeds its
// points with too, so a question sent through it and searched in the fake
// Qdrant gets meaningful hits.
package coheretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

// MaxTexts is the most texts Cohere accepts in one embed call.
const MaxTexts = 96

// Dim is the vector length of the v3 english and multilingual models.
const Dim = fakeapi.Dim

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
	// Endpoint is the server's URL (the client's base URL) and the key
	// it accepts (Close shuts it down).
	fakeapi.Endpoint

	// Calls counts requests, queues failures, delays answers and keeps
	// the last request (SetLatency, Fail, Requests, BatchSizes,
	// LastRequest).
	fakeapi.Calls[Failure, Request]

	mu       sync.Mutex
	rerankOK []RerankRequest
	short    int
	tamper   func(index int, score float64) float64
	// structured answers chats that ask for structured output (Structured).
	structured fakeapi.Structured[ChatRequest]
	// ChatLog queues replies and records chats (Reply, LastChat, Chats;
	// chat.go). Chats with no reply queued get the default reply: the
	// first sentence of the first document, cited to it (or, with no
	// documents, an uncited refusal).
	fakeapi.ChatLog[ChatRequest, ChatReply]
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
	s := &Server{}
	s.Endpoint = fakeapi.Start(key, "", s.handle)
	return s
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, fail, ok, readErr := s.Receive(r, 8<<20)
	if !ok {
		return
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
	case "/v2/chat":
		s.chat(w, r, body)
	default:
		s.embed(w, body, readErr)
	}
}

// embed answers POST /v2/embed.
func (s *Server) embed(w http.ResponseWriter, body []byte, readErr error) {
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
	s.Record(req, len(req.Texts))

	vecs := make([][]float32, len(req.Texts))
	tokens := 0
	for i, t := range req.Texts {
		vecs[i] = fakeapi.Vector(t, dim)
		tokens += len(strings.Fields(t))
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{
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
	fakeapi.WriteJSON(w, status, map[string]string{"message": msg})
}
