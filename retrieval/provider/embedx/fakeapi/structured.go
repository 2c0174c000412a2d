package fakeapi

import (
	"encoding/json"
	"sync"
)

// Message is one message of a chat request, as Cohere's v2 chat and
// OpenAI's chat completions both send it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Structured is how a fake chat server answers chats that ask for
// structured output (a JSON schema) when no reply is queued (Req is the
// fake's chat request type). Its methods are safe for concurrent use; the
// zero value answers with the schema's smallest instance.
type Structured[Req any] struct {
	mu sync.Mutex
	fn func(Req) string
}

// Set makes fn answer: it gets the request and returns the answer's text.
func (s *Structured[Req]) Set(fn func(Req) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fn = fn
}

// Pieces are the answer to req, which asks for schema, in two streamed
// pieces: Set's function's text, else the schema's smallest instance as
// JSON (each integer its minimum or first enum value, each string "").
func (s *Structured[Req]) Pieces(req Req, schema map[string]any) []string {
	s.mu.Lock()
	fn := s.fn
	s.mu.Unlock()
	var text string
	if fn != nil {
		text = fn(req)
	} else {
		b, _ := json.Marshal(instance(schema))
		text = string(b)
	}
	half := len(text) / 2
	return []string{text[:half], text[half:]}
}

// instance is the smallest value of a JSON schema.
func instance(schema map[string]any) any {
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch schema["type"] {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = instance(sub)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := schema["minimum"]; ok {
			return m
		}
		return 0
	case "boolean":
		return false
	}
	return ""
}
