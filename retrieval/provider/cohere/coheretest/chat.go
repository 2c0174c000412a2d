package coheretest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

// ChatRequest is the body of a POST /v2/chat, as the server decoded it.
type ChatRequest struct {
	Model     string            `json:"model"`
	Stream    bool              `json:"stream"`
	Messages  []fakeapi.Message `json:"messages"`
	Documents []struct {
		ID   string            `json:"id"`
		Data map[string]string `json:"data"`
	} `json:"documents"`
	// ResponseFormat is the structured-output option, nil when not asked.
	ResponseFormat *struct {
		Type       string         `json:"type"`
		JSONSchema map[string]any `json:"json_schema"`
	} `json:"response_format"`
}

// Schema is the JSON schema the chat asked its answer to follow; nil
// without one.
func (r ChatRequest) Schema() map[string]any {
	if r.ResponseFormat == nil {
		return nil
	}
	return r.ResponseFormat.JSONSchema
}

// ChatReply is how the fake answers one chat: the answer's text in
// pieces (one content-delta event each) and its citations (a
// citation-start event once the piece holding the span's end was sent).
type ChatReply struct {
	Pieces    []string
	Citations []ChatCitation
	// Delay is the pause before each piece.
	Delay time.Duration
	// Stall, when set, stops after this many pieces and holds the stream
	// open until the client goes away.
	Stall int
	// NoEnd ends the stream without a message-end event.
	NoEnd bool
	// Hold, when set, is awaited (closed, or the client gone) before every
	// piece after the first: a test can check that the first piece was
	// shown before the rest exists.
	Hold <-chan struct{}
}

// ChatCitation cites the answer's characters [Start, End) with documents.
type ChatCitation struct {
	Start, End int
	DocIDs     []string
}

// chatModels are the chat models the fake knows.
var chatModels = map[string]bool{"command-a-03-2025": true, "command-r-plus-08-2024": true, "command-r7b-12-2024": true}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "", "invalid request body: "+err.Error())
		return
	}
	if status, msg := checkChat(req); status != 0 {
		writeError(w, status, "", msg)
		return
	}
	reply := s.Next(req, s.defaultFor)
	streamChat(r.Context(), fakeapi.OpenStream(w, r), req, reply)
}

// checkChat refuses a chat the fake cannot answer as Cohere would: an
// unknown model, an unstreamed chat, no messages, a response format
// other than a JSON object's schema. It returns the status and message
// of the refusal, or 0.
func checkChat(req ChatRequest) (int, string) {
	switch {
	case !chatModels[req.Model]:
		return http.StatusNotFound, fmt.Sprintf("model '%s' not found, make sure the correct model ID was used", req.Model)
	case !req.Stream:
		return http.StatusBadRequest, "the fake answers streamed chats only"
	case len(req.Messages) == 0:
		return http.StatusBadRequest, "messages must not be empty"
	case req.ResponseFormat != nil && (req.ResponseFormat.Type != "json_object" || req.Schema()["type"] != "object"):
		return http.StatusBadRequest, "response_format must be json_object with a json_schema of type object"
	}
	return 0, ""
}

// streamChat streams reply to req as Cohere's v2 chat events: the
// message and content starts, a content delta per piece with each
// citation once the piece holding its end was sent, the content end and
// (unless reply.NoEnd) the message end with the usage. It stops when
// the client goes away (ctx).
func streamChat(ctx context.Context, st *fakeapi.Stream, req ChatRequest, reply ChatReply) {
	send := func(typ string, ev map[string]any) bool {
		ev["type"] = typ
		return st.Send(typ, ev)
	}
	docs := map[string]map[string]string{}
	for _, d := range req.Documents {
		docs[d.ID] = d.Data
	}
	send("message-start", map[string]any{"id": "fake-chat", "delta": map[string]any{"message": map[string]any{"role": "assistant"}}})
	send("content-start", map[string]any{"index": 0, "delta": map[string]any{"message": map[string]any{"content": map[string]any{"type": "text", "text": ""}}}})
	sent := 0 // characters sent
	cited := make([]bool, len(reply.Citations))
	full := strings.Join(reply.Pieces, "")
	for i, p := range reply.Pieces {
		if !fakeapi.Pace(ctx, i, reply.Stall, reply.Hold, reply.Delay) {
			return
		}
		if !send("content-delta", map[string]any{"index": 0, "delta": map[string]any{"message": map[string]any{"content": map[string]any{"text": p}}}}) {
			return
		}
		sent += utf8.RuneCountInString(p)
		for j, c := range reply.Citations {
			if cited[j] || c.End > sent {
				continue
			}
			cited[j] = true
			var sources []map[string]any
			for _, id := range c.DocIDs {
				sources = append(sources, map[string]any{"type": "document", "id": id, "document": docs[id]})
			}
			text := string([]rune(full)[min(c.Start, c.End):min(c.End, utf8.RuneCountInString(full))])
			send("citation-start", map[string]any{"index": j, "delta": map[string]any{"message": map[string]any{"citations": map[string]any{
				"start": c.Start, "end": c.End, "text": text, "sources": sources, "type": "TEXT_CONTENT",
			}}}})
			send("citation-end", map[string]any{"index": j})
		}
	}
	send("content-end", map[string]any{"index": 0})
	if !reply.NoEnd {
		send("message-end", map[string]any{"delta": map[string]any{"finish_reason": "COMPLETE", "usage": chatUsage(req, full)}})
	}
}

// chatUsage is the usage of a chat that answered full: its words, and
// the words of the messages and documents as its input (ten more tokens
// than billed).
func chatUsage(req ChatRequest, full string) map[string]any {
	in := 0
	for _, m := range req.Messages {
		in += len(strings.Fields(m.Content))
	}
	for _, d := range req.Documents {
		in += len(strings.Fields(d.Data["text"]))
	}
	out := len(strings.Fields(full))
	return map[string]any{
		"billed_units": map[string]any{"input_tokens": in, "output_tokens": out},
		"tokens":       map[string]any{"input_tokens": in + 10, "output_tokens": out},
	}
}

// defaultReply answers with the first sentence of the first document,
// cited to it.
func defaultReply(req ChatRequest) ChatReply {
	if len(req.Documents) == 0 {
		return ChatReply{Pieces: []string{"The documents ", "do not contain ", "an answer."}}
	}
	d := req.Documents[0]
	text := strings.Join(strings.Fields(d.Data["text"]), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	answer := "From the textbook: " + text
	pieces := strings.SplitAfter(answer, " ")
	start := utf8.RuneCountInString("From the textbook: ")
	return ChatReply{Pieces: pieces, Citations: []ChatCitation{{Start: start, End: utf8.RuneCountInString(answer), DocIDs: []string{d.ID}}}}
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
