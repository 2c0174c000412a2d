package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/openai/openaitest"
)

// A Retry-After past the time left (here the 20 s per-call timeout) ends
// the call after one request: the message says so, not "after 3 attempts".
func TestRetryAfterNotWaitedForIsSaid(t *testing.T) {
	e, srv := newTest(t, Options{})
	srv.Fail(openaitest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	_, err := e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || srv.Requests() != 1 {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
	if msg := err.Error(); !strings.Contains(msg, "(429): asked to wait 1 h, past the 20 s timeout; not retried") || strings.Contains(msg, "attempts") {
		t.Fatalf("message %q", msg)
	}
	// Retried to the end: the attempts made are counted.
	e, srv = newTest(t, Options{})
	srv.Fail(openaitest.Failure{Status: 429, RetryAfter: "0"}, openaitest.Failure{Status: 429, RetryAfter: "0"}, openaitest.Failure{Status: 429, RetryAfter: "0"})
	if _, err = e.Embed(context.Background(), []string{"q"}); srv.Requests() != 3 || !strings.Contains(err.Error(), "(429) after 3 attempts") {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
	// One attempt allowed: nothing to say about retries.
	e, srv = newTest(t, Options{MaxAttempts: 1})
	srv.Fail(openaitest.Failure{Status: 429, RetryAfter: "3600"})
	if _, err = e.Embed(context.Background(), []string{"q"}); srv.Requests() != 1 || strings.Contains(err.Error(), "attempts") || strings.Contains(err.Error(), "asked to wait") {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}

	chatSrv := openaitest.NewServer("sk")
	defer chatSrv.Close()
	chatSrv.Fail(openaitest.Failure{Status: 429, RetryAfter: "7200"})
	_, err = retrieval.Generate(context.Background(), newTestChat(t, chatSrv, "", 0), chatResult(), nil)
	if chatSrv.Requests() != 1 || !strings.Contains(fmtErr(err), "(429): asked to wait 2 h, past the 20 s timeout; not retried") {
		t.Fatalf("chat: %v after %d requests", err, chatSrv.Requests())
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A chat stream past its bound, in all or in one event, is "answered with
// an oversized response" (exit 3), not a timeout or a broken stream.
func TestChatStreamPastItsBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		limits embedx.Limits
		reply  openaitest.ChatReply
		say    string
	}{
		{"stream", embedx.Limits{Stream: 8 << 10}, openaitest.ChatReply{Pieces: strings.Split(strings.Repeat("word ", 400), " ")}, "the answer stream passed 8 KiB"},
		{"event", embedx.Limits{Event: 2 << 10}, openaitest.ChatReply{Pieces: []string{"ok ", strings.Repeat("x", 4<<10)}}, "one event of the answer stream passed 2 KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.NewServer("sk")
			defer srv.Close()
			srv.Reply(c.reply)
			ch, err := NewChat(ChatOptions{APIKey: "sk", BaseURL: srv.URL, Limits: c.limits})
			if err != nil {
				t.Fatal(err)
			}
			_, err = retrieval.Generate(context.Background(), ch, chatResult(), nil)
			if !errors.Is(err, retrieval.ErrUnavailable) || errors.Is(err, retrieval.ErrConfig) {
				t.Fatalf("err %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "The chat server at "+srv.URL+" answered with an oversized response (HTTP 200): "+c.say) ||
				strings.Contains(msg, "did not answer") || strings.Contains(msg, "broke off") {
				t.Fatalf("message %q", msg)
			}
			if srv.Requests() != 1 {
				t.Fatalf("%d requests: an oversized answer is not retried", srv.Requests())
			}
		})
	}
}
