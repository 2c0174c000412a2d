package openai

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/openai/openaitest"
)

// chatResult is a result whose context order differs from its ranks:
// Source 1 is rank 3, Source 2 rank 1, Source 3 rank 2.
func chatResult() retrieval.Result {
	hit := func(rank int, doc string, idx int, text string) retrieval.Hit {
		return retrieval.Hit{Rank: rank, Score: 1 - float64(rank)/10, Chunk: retrieval.Chunk{
			ID: doc + "#" + text[:4], Text: text, DocPath: doc, Title: doc, Section: "S" + text[:4], ChunkIndex: retrieval.IntPtr(idx),
		}, Citation: retrieval.Citation{URL: "https://book.test/" + doc, Title: doc}}
	}
	hits := []retrieval.Hit{
		hit(1, "nodes", 1, "Nodes talk over topics. They publish messages."),
		hit(2, "urdf", 0, "URDF describes a robot's links and joints."),
		hit(3, "nodes", 0, "ROS 2 is a middleware for robots. It has nodes."),
	}
	return retrieval.Result{Question: "What is ROS 2?", Mode: retrieval.ModeNormal, Hits: hits, Grounded: retrieval.Ground(hits)}
}

func newTestChat(t *testing.T, srv *openaitest.Server, model string, timeout time.Duration) *Chat {
	t.Helper()
	c, err := NewChat(ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Model: model, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChatStreamsMarkersMappedToRanks(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Reply(openaitest.ChatReply{Pieces: []string{"ROS 2 is a middleware [Sour", "ce 1]. Nodes use topics. [Source 2, 3]", " Done."}})
	res := chatResult()
	var pieces int
	a, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), res, func(d retrieval.Delta) {
		if d.Text != "" {
			pieces++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if pieces != 3 || a.Text != "ROS 2 is a middleware [Source 1]. Nodes use topics. [Source 2, 3] Done." {
		t.Fatalf("%d pieces, text %q", pieces, a.Text)
	}
	if len(a.Citations) != 2 || !slices.Equal(a.Citations[0].Ranks, []int{3}) || !slices.Equal(a.Citations[1].Ranks, []int{1, 2}) {
		t.Fatalf("citations %+v", a.Citations)
	}
	if a.Citations[0].Text != "ROS 2 is a middleware" || a.Citations[1].Text != "Nodes use topics." || a.Citations[1].Marker != "[Source 2, 3]" {
		t.Errorf("spans %+v", a.Citations)
	}
	if got := a.Annotated(); got != "ROS 2 is a middleware [3]. Nodes use topics. [1,2] Done." {
		t.Errorf("annotated %q", got)
	}
	if a.Usage.OutputTokens == 0 || a.Usage.InputTokens == 0 || a.FinishReason != "stop" || a.Provider != "openai" || a.Model != DefaultChatModel {
		t.Errorf("usage %+v finish %q", a.Usage, a.FinishReason)
	}
	// The system message is the instruction and the context as shown.
	req := srv.LastChat()
	if req.Messages[0].Role != "system" || req.Messages[0].Content != retrieval.InstructionNormal+"\n\n"+res.Grounded.Context ||
		req.Messages[1].Role != "user" || req.Messages[1].Content != res.Question || !req.StreamOptions.IncludeUsage {
		t.Errorf("request %+v", req)
	}
}

func TestChatDefaultReplyUnknownAndNone(t *testing.T) {
	srv := openaitest.NewServer("") // a local server: no key
	defer srv.Close()
	g := newTestChat(t, srv, "llama3.2", 0)
	a, err := retrieval.Generate(context.Background(), g, chatResult(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "From the textbook: ROS 2 is a middleware for robots. [Source 1]" || !slices.Equal(a.Cited, []int{3}) || !slices.Equal(a.Uncited, []int{1, 2}) {
		t.Errorf("default reply %q cited %v uncited %v", a.Text, a.Cited, a.Uncited)
	}
	srv.Reply(openaitest.ChatReply{Pieces: []string{"It is magic [Source 7]."}}, openaitest.ChatReply{Pieces: []string{"It is ROS."}})
	a, _ = retrieval.Generate(context.Background(), g, chatResult(), nil)
	if !slices.Equal(a.Unknown, []int{7}) || len(a.Cited) != 0 {
		t.Errorf("unknown %v cited %v", a.Unknown, a.Cited)
	}
	a, _ = retrieval.Generate(context.Background(), g, chatResult(), nil)
	if len(a.Citations) != 0 || len(a.Warnings(true)) != 1 {
		t.Errorf("no citations: %+v %q", a.Citations, a.Warnings(true))
	}
}

func TestChatRefusalSendsNothing(t *testing.T) {
	srv := openaitest.NewServer("sk")
	defer srv.Close()
	a, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), retrieval.Result{Question: "bread?", Grounded: retrieval.Ground(nil)}, nil)
	if err != nil || !a.Refused || srv.Requests() != 0 {
		t.Errorf("err %v refused %v requests %d", err, a.Refused, srv.Requests())
	}
}

func TestChatErrors(t *testing.T) {
	srv := openaitest.NewServer("sk-right")
	defer srv.Close()
	bad, _ := NewChat(ChatOptions{APIKey: "sk-wrong", BaseURL: srv.URL})
	_, err := retrieval.Generate(context.Background(), bad, chatResult(), nil)
	if !errors.Is(err, retrieval.ErrAuth) || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "sk-wrong") {
		t.Errorf("401: %v", err)
	}
	srv.Fail(openaitest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "0"})
	before := srv.Requests()
	a, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), chatResult(), nil)
	if err != nil || srv.Requests()-before != 2 || !strings.HasPrefix(a.Text, "From the textbook") {
		t.Errorf("429 then success: %v after %d requests", err, srv.Requests()-before)
	}
	_, err = retrieval.Generate(context.Background(), newTestChat(t, srv, "gpt-nope", 0), chatResult(), nil)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "--chat-model") {
		t.Errorf("unknown model: %v", err)
	}
	srv.Fail(openaitest.Failure{Raw: "<html>proxy</html>", ContentType: "text/html"})
	_, err = retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), chatResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "invalid response") {
		t.Errorf("html: %v", err)
	}
	if _, err := NewChat(ChatOptions{}); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("no key for api.openai.com: %v", err)
	}
}

func TestChatTimeoutCancelBroken(t *testing.T) {
	srv := openaitest.NewServer("sk")
	defer srv.Close()
	srv.Reply(openaitest.ChatReply{Pieces: []string{"one ", "two"}, Stall: 1})
	var got string
	_, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 100*time.Millisecond), chatResult(), func(d retrieval.Delta) { got += d.Text })
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within") || got != "one " {
		t.Errorf("timeout: %v, %q", err, got)
	}

	srv.Reply(openaitest.ChatReply{Pieces: []string{"one ", "two ", "three"}, Stall: 2})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = retrieval.Generate(ctx, newTestChat(t, srv, "", 0), chatResult(), func(d retrieval.Delta) {
		if d.Text != "" {
			n++
		}
		if n == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || errors.Is(err, retrieval.ErrUnavailable) || n != 2 {
		t.Errorf("cancel: %v after %d pieces", err, n)
	}

	srv.Reply(openaitest.ChatReply{Pieces: []string{"half"}, NoDone: true})
	_, err = retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), chatResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "before it finished") {
		t.Errorf("broken: %v", err)
	}
}

func TestChatHostileTextKept(t *testing.T) {
	srv := openaitest.NewServer("sk")
	defer srv.Close()
	srv.Reply(openaitest.ChatReply{Pieces: []string{"\x1b]52;c;cG93bg==\x07evil \x1b[2J [Source 1]"}})
	a, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 0), chatResult(), nil)
	if err != nil || !strings.Contains(a.Text, "\x1b[2J") || !slices.Equal(a.Cited, []int{3}) {
		t.Errorf("%v %q %v", err, a.Text, a.Cited)
	}
}

// A chat (ask, the judge, golden generate) is bound by the rule every
// call follows: a Retry-After past the per-call timeout is not waited,
// even one the SDK would wait (under its 8 s).
func TestChatRetryAfterPastTheTimeoutIsNotWaited(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Fail(openaitest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "6"}, openaitest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "6"})
	_, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", time.Second), chatResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) || srv.Requests() != 1 {
		t.Fatalf("err %v after %d requests, want 1", err, srv.Requests())
	}
	if msg := err.Error(); !strings.Contains(msg, "(429): asked to wait 6 s, past the 1 s timeout; not retried") {
		t.Fatalf("message %q", msg)
	}
}

// Retries that end by the timeout after answers name the last answer.
func TestChatRetriesEndedByTheTimeoutNameTheLastAnswer(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Fail(openaitest.Failure{Status: http.StatusBadGateway}, openaitest.Failure{Status: http.StatusBadGateway}, openaitest.Failure{Status: http.StatusBadGateway})
	_, err := retrieval.Generate(context.Background(), newTestChat(t, srv, "", 300*time.Millisecond), chatResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "unavailable (502)") || strings.Contains(msg, "did not answer") {
		t.Fatalf("message %q", msg)
	}
}
