// Package geminitest is an in-process stand-in for the Gemini API's
// embedding endpoints (models/{model}:embedContent and
// :batchEmbedContents, key in x-goog-api-key). Vectors come from
// fakeapi.Vector, so they match the fake Qdrant's points at equal size.
package geminitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

var models = map[string]int{"gemini-embedding-001": 3072, "text-embedding-004": 768}

// Failure is an answer sent instead of embeddings.
type Failure struct {
	// Status is the HTTP status; Message the error message.
	Status  int
	Message string
	// Raw is sent verbatim when set (an HTML page), with Status or 200.
	Raw string
}

// Server is an httptest server speaking the Gemini embedding API.
type Server struct {
	// Endpoint is the server's URL (the client's base URL) and the key
	// it accepts (Close shuts it down).
	fakeapi.Endpoint
	// Calls counts requests, queues failures, delays answers and keeps
	// the last call's first request (SetLatency, Fail, Requests,
	// BatchSizes, LastRequest).
	fakeapi.Calls[Failure, Request]
}

// NewServer starts the fake on a loopback port.
func NewServer(key string) *Server {
	s := &Server{}
	s.Endpoint = fakeapi.Start(key, "", s.handle)
	return s
}

// LastDimensions is the outputDimensionality of the last call (0 = none)
// and LastTask its taskType.
func (s *Server) LastDimensions() (int, string) {
	last := s.LastRequest()
	return last.OutputDimensionality, last.TaskType
}

// Request is one embedContent request, as the server decoded it.
type Request struct {
	Model   string `json:"model"`
	Content struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"content"`
	TaskType             string `json:"taskType"`
	OutputDimensionality int    `json:"outputDimensionality"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, fail, ok, _ := s.Receive(r, 64<<20)
	if !ok {
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v1beta/models/")
	model, method, ok := strings.Cut(path, ":")
	if r.Method != http.MethodPost || !ok || path == r.URL.Path {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "not found: "+r.URL.Path)
		return
	}
	if s.Key == "" || r.Header.Get("x-goog-api-key") != s.Key {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	}
	if fail != nil {
		if fail.Raw != "" {
			fakeapi.WriteRaw(w, fail.Status, "text/html", fail.Raw)
			return
		}
		writeError(w, fail.Status, "UNAVAILABLE", fail.Message)
		return
	}
	native, known := models[model]
	if !known {
		writeError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for embedContent.", model))
		return
	}
	reqs, refused := decodeEmbed(method, body)
	if refused != nil {
		writeError(w, refused.code, refused.status, refused.msg)
		return
	}
	s.embed(w, method, native, reqs)
}

// refusal is an error answer: its HTTP code, Google status and message.
type refusal struct {
	code        int
	status, msg string
}

// decodeEmbed decodes the body of an embedContent call (one request) or
// of a batchEmbedContents call (1 to 100), or says how to refuse it.
func decodeEmbed(method string, body []byte) ([]Request, *refusal) {
	var reqs []Request
	switch method {
	case "batchEmbedContents":
		var b struct {
			Requests []Request `json:"requests"`
		}
		if json.Unmarshal(body, &b) != nil {
			return nil, &refusal{http.StatusBadRequest, "INVALID_ARGUMENT", "invalid JSON"}
		}
		reqs = b.Requests
	case "embedContent":
		var one Request
		if json.Unmarshal(body, &one) != nil {
			return nil, &refusal{http.StatusBadRequest, "INVALID_ARGUMENT", "invalid JSON"}
		}
		reqs = []Request{one}
	default:
		return nil, &refusal{http.StatusNotFound, "NOT_FOUND", "unknown method " + method}
	}
	if len(reqs) == 0 || len(reqs) > 100 {
		return nil, &refusal{http.StatusBadRequest, "INVALID_ARGUMENT", "requests must hold 1..100 items"}
	}
	return reqs, nil
}

// embed answers the embedding requests reqs of a model whose vectors
// have native dimensions, in method's shape.
func (s *Server) embed(w http.ResponseWriter, method string, native int, reqs []Request) {
	type emb struct {
		Values []float32 `json:"values"`
	}
	out := make([]emb, len(reqs))
	for i, q := range reqs {
		dim := native
		if q.OutputDimensionality > 0 {
			if q.OutputDimensionality > native {
				writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "outputDimensionality is too large")
				return
			}
			dim = q.OutputDimensionality
		}
		text := ""
		for _, p := range q.Content.Parts {
			text += p.Text
		}
		out[i] = emb{Values: fakeapi.Vector(text, dim)}
	}
	s.Record(reqs[0], len(reqs))
	if method == "embedContent" {
		fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"embedding": out[0]})
		return
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"embeddings": out})
}

func writeError(w http.ResponseWriter, code int, status, msg string) {
	fakeapi.WriteJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}
