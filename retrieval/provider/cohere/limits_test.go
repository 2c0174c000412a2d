package cohere_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedx"
)

// A chat stream past its bound, in all or in one event, is "answered with
// an oversized response" (exit 3): not retried, not a timeout.
func TestChatStreamPastItsBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		limits embedx.Limits
		reply  coheretest.ChatReply
		say    string
	}{
		{"stream", embedx.Limits{Stream: 8 << 10}, coheretest.ChatReply{Pieces: strings.Split(strings.Repeat("word ", 400), " ")}, "the answer stream passed 8 KiB"},
		{"event", embedx.Limits{Event: 2 << 10}, coheretest.ChatReply{Pieces: []string{"ok ", strings.Repeat("x", 4<<10)}}, "one event of the answer stream passed 2 KiB"},
		{"first event", embedx.Limits{Event: 2 << 10}, coheretest.ChatReply{Pieces: []string{strings.Repeat("x", 4<<10)}}, "one event of the answer stream passed 2 KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := coheretest.NewServer("k")
			defer srv.Close()
			srv.Reply(c.reply, c.reply, c.reply)
			ch, err := cohere.NewChat(cohere.ChatOptions{APIKey: "k", BaseURL: srv.URL, Limits: c.limits,
				Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = retrieval.Generate(context.Background(), ch, answerResult(), nil)
			if !errors.Is(err, retrieval.ErrUnavailable) {
				t.Fatalf("err %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "Cohere at "+srv.URL+" answered with an oversized response (HTTP 200): "+c.say+". Check COHERE_BASE_URL") ||
				strings.Contains(msg, "did not answer") || strings.Contains(msg, "Cannot reach") {
				t.Fatalf("message %q", msg)
			}
			if srv.Chats() != 1 {
				t.Fatalf("%d chats: an oversized answer is not retried", srv.Chats())
			}
		})
	}
}

// An embed or rerank answer past the bound: the same class and wording.
func TestRerankPastItsBound(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	rr, err := cohere.NewReranker(cohere.RerankOptions{APIKey: "k", BaseURL: srv.URL, Limits: embedx.Limits{Response: 256}})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]string, 40)
	for i := range docs {
		docs[i] = "robot joints"
	}
	_, err = rr.Rerank(context.Background(), "robot joints", docs, 40)
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(fmtErr(err), "answered with an oversized response (HTTP 200): the response passed 256 bytes") || srv.Requests() != 1 {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A Retry-After past the time left (the deadline, or the per-call timeout
// when there is none) is not waited at all, and said: one request,
// "asked to wait 1 h, past the 5 s left; not retried".
func TestRetryAfterNotWaitedForIsSaid(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	e, err := cohere.New(cohere.Options{APIKey: "k", BaseURL: srv.URL, CacheSize: -1,
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "3600"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = e.Embed(ctx, []string{"q"})
	if srv.Requests() != 1 || !strings.Contains(fmtErr(err), "Cohere rate limit reached (429): asked to wait 1 h, past the 5 s left; not retried.") {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
	// No deadline: the per-call timeout (20 s by default) bounds the wait.
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "3600"})
	_, err = e.Embed(context.Background(), []string{"q"})
	if srv.Requests() != 2 || !strings.Contains(fmtErr(err), "asked to wait 1 h, past the 20 s timeout; not retried.") {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
	// Waited for (within the time left) and retried to the end: counted.
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "2"}, coheretest.Failure{Status: 429, RetryAfter: "2"}, coheretest.Failure{Status: 429, RetryAfter: "2"})
	_, err = e.Embed(context.Background(), []string{"q"})
	if srv.Requests() != 5 || !strings.Contains(fmtErr(err), "(429) after 3 attempts") {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
}
