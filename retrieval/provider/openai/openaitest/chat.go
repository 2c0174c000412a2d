package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

// ChatRequest is the body of a POST /v1/chat/completions, as decoded.
type ChatRequest struct {
	Model         string            `json:"model"`
	Stream        bool              `json:"stream"`
	Messages      []fakeapi.Message `json:"messages"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	// ResponseFormat is the structured-output option, nil when not asked.
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Strict bool           `json:"strict"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// Schema is the JSON schema the chat asked its answer to follow; nil
// without one.
func (r ChatRequest) Schema() map[string]any {
	if r.ResponseFormat == nil || r.ResponseFormat.JSONSchema == nil {
		return nil
	}
	return r.ResponseFormat.JSONSchema.Schema
}

// ChatReply is how the fake answers one chat: the answer's text in
// pieces, one SSE chunk each, then a chunk with the finish reason, a usage
// chunk (when asked for) and [DONE].
type ChatReply struct {
	Pieces []string
	// Delay is the pause before each piece.
	Delay time.Duration
	// Stall, when set, stops after this many pieces and holds the stream
	// open until the client goes away.
	Stall int
	// NoDone ends the stream after the pieces, with no finish reason and
	// no [DONE].
	NoDone bool
	// NoUsage sends no usage chunk even when asked for, as some local
	// servers do.
	NoUsage bool
}

// chatModels are the chat models the fake knows (OpenAI's and a local
// server's).
var chatModels = map[string]bool{"gpt-4o-mini": true, "gpt-4.1": true, "llama3.2": true}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "", "'messages' must be a non-empty array", "invalid_request_error")
		return
	}
	if !chatModels[req.Model] {
		writeError(w, http.StatusNotFound, "", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model), "invalid_request_error")
		return
	}
	if !req.Stream {
		writeError(w, http.StatusBadRequest, "", "the fake answers streamed chats only", "invalid_request_error")
		return
	}
	reply := s.Next(req, s.defaultFor)
	streamChat(r.Context(), fakeapi.OpenStream(w, r), req, reply)
}

// streamChat streams reply to req as OpenAI's chat completion chunks: the
// role, a chunk per piece and (unless reply.NoDone) the finish reason,
// the usage when asked for (and not reply.NoUsage) and [DONE]. It stops
// when the client goes away (ctx).
func streamChat(ctx context.Context, st *fakeapi.Stream, req ChatRequest, reply ChatReply) {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	st.Send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	out := 0
	for i, p := range reply.Pieces {
		if !fakeapi.Pace(ctx, i, reply.Stall, nil, reply.Delay) {
			return
		}
		if !st.Send("", chunk(map[string]any{"content": p}, nil)) {
			return
		}
		out += len(strings.Fields(p))
	}
	if reply.NoDone {
		return
	}
	st.Send("", chunk(map[string]any{}, "stop"))
	if req.StreamOptions.IncludeUsage && !reply.NoUsage {
		in := 0
		for _, m := range req.Messages {
			in += len(strings.Fields(m.Content))
		}
		st.Send("", map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"choices": []any{}, "usage": map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
		})
	}
	st.Data("", "[DONE]")
}

// defaultReply cites the first sentence of the context's first source.
func defaultReply(req ChatRequest) ChatReply {
	system := req.Messages[0].Content
	_, ctx, _ := strings.Cut(system, "\n\n") // instruction, blank line, context
	marker, text := "", ctx
	if strings.HasPrefix(ctx, "[Source ") {
		head, rest, _ := strings.Cut(ctx, "\n")
		n, _, _ := strings.Cut(strings.TrimPrefix(head, "[Source "), ":")
		marker, text = " [Source "+strings.TrimSuffix(n, "]")+"]", rest
		text, _, _ = strings.Cut(text, "\n\n[Source ")
	}
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	return ChatReply{Pieces: strings.SplitAfter("From the textbook: "+text+marker, " ")}
}

// defaultFor is the reply to req when none is queued: a structured one
// when req asks for a schema, else defaultReply.
func (s *Server) defaultFor(req ChatRequest) ChatReply {
	if schema := req.Schema(); schema != nil {
		return ChatReply{Pieces: s.structured.Pieces(req, schema)}
	}
	return defaultReply(req)
}

// Structured sets how chats that ask for structured output are answered
// when no reply is queued: fn gets the request and returns the answer's
// text. Without it the answer is the schema's smallest instance (each
// integer its minimum or first enum value, each string "").
func (s *Server) Structured(fn func(ChatRequest) string) { s.structured.Set(fn) }
