package cohere_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
)

// answerResult is a result whose context order differs from its ranks:
// Source 1 is rank 3, Source 2 rank 1, Source 3 rank 2.
func answerResult() retrieval.Result {
	hit := func(rank int, doc string, idx int, text string) retrieval.Hit {
		return retrieval.Hit{Rank: rank, Score: 1 - float64(rank)/10, Chunk: retrieval.Chunk{
			ID: doc + "#" + text[:4], Text: text, DocPath: doc, Title: strings.ToUpper(doc[:1]) + doc[1:], Section: "S" + text[:4],
			ChunkIndex: retrieval.IntPtr(idx),
		}, Citation: retrieval.Citation{URL: "https://book.test/" + doc, Title: doc}}
	}
	hits := []retrieval.Hit{
		hit(1, "nodes", 1, "Nodes talk over topics. They publish messages."),
		hit(2, "urdf", 0, "URDF describes a robot's links and joints."),
		hit(3, "nodes", 0, "ROS 2 is a middleware for robots. It has nodes."),
	}
	return retrieval.Result{Question: "What is ROS 2?", Mode: retrieval.ModeNormal, Hits: hits, Grounded: retrieval.Ground(hits)}
}

func newChat(t *testing.T, srv *coheretest.Server, timeout time.Duration) *cohere.Chat {
	t.Helper()
	c, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Timeout: timeout,
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChatStreamsCitationsMappedToRanks(t *testing.T) {
	srv := coheretest.NewServer("k-123")
	defer srv.Close()
	srv.Reply(coheretest.ChatReply{
		Pieces: []string{"ROS 2 is ", "a middleware. ", "Nodes use topics."},
		Citations: []coheretest.ChatCitation{
			{Start: 0, End: 22, DocIDs: []string{"source-1"}},
			{Start: 23, End: 40, DocIDs: []string{"source-2", "source-3"}},
		},
	})
	var pieces []string
	a, err := retrieval.Generate(context.Background(), newChat(t, srv, 0), answerResult(), func(d retrieval.Delta) {
		if d.Text != "" {
			pieces = append(pieces, d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 3 || a.Text != "ROS 2 is a middleware. Nodes use topics." {
		t.Fatalf("pieces %q, text %q", pieces, a.Text)
	}
	if len(a.Citations) != 2 || !slices.Equal(a.Citations[0].Ranks, []int{3}) || !slices.Equal(a.Citations[1].Ranks, []int{1, 2}) {
		t.Fatalf("citations %+v", a.Citations)
	}
	if a.Citations[0].Text != "ROS 2 is a middleware." || a.Citations[0].Marker != "" {
		t.Errorf("span %+v", a.Citations[0])
	}
	if !slices.Equal(a.Cited, []int{1, 2, 3}) || len(a.Uncited) != 0 || len(a.Unknown) != 0 {
		t.Errorf("cited %v uncited %v unknown %v", a.Cited, a.Uncited, a.Unknown)
	}
	if a.Usage.OutputTokens != 8 || a.Usage.InputTokens == 0 || a.FinishReason != "COMPLETE" || a.Model != cohere.DefaultChatModel || a.Provider != "cohere" {
		t.Errorf("usage %+v finish %q model %q", a.Usage, a.FinishReason, a.Model)
	}
	if got := a.Annotated(); got != "ROS 2 is a middleware.[3] Nodes use topics.[1,2]" {
		t.Errorf("annotated %q", got)
	}
	// The sources went as documents with ids that map back to [Source N].
	req := srv.LastChat()
	if len(req.Documents) != 3 || req.Documents[0].ID != "source-1" || !strings.HasPrefix(req.Documents[0].Data["text"], "ROS 2 is a middleware") ||
		req.Documents[1].Data["text"] != "Nodes talk over topics. They publish messages." {
		t.Errorf("documents %+v", req.Documents)
	}
	if req.Messages[0].Role != "system" || req.Messages[0].Content != retrieval.InstructionNormal || req.Messages[1].Content != "What is ROS 2?" {
		t.Errorf("messages %+v", req.Messages)
	}
}

func TestChatUnknownAndMissingCitations(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	srv.Reply(
		coheretest.ChatReply{Pieces: []string{"Made up."}, Citations: []coheretest.ChatCitation{{Start: 0, End: 8, DocIDs: []string{"source-9"}}}},
		coheretest.ChatReply{Pieces: []string{"No sources here."}},
	)
	g := newChat(t, srv, 0)
	a, err := retrieval.Generate(context.Background(), g, answerResult(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Unknown, []int{9}) || len(a.Cited) != 0 || !slices.Equal(a.Uncited, []int{1, 2, 3}) {
		t.Errorf("unknown %v cited %v uncited %v", a.Unknown, a.Cited, a.Uncited)
	}
	if w := a.Warnings(true); len(w) != 1 || !strings.Contains(w[0], "[Source 9]") {
		t.Errorf("warnings %q", w)
	}
	a, err = retrieval.Generate(context.Background(), g, answerResult(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Citations) != 0 || len(a.Cited) != 0 {
		t.Errorf("citations %+v", a.Citations)
	}
	if w := a.Warnings(true); len(w) != 1 || !strings.Contains(w[0], "cites no source") {
		t.Errorf("warnings %q", w)
	}
}

func TestChatRefusesWithoutSending(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	res := retrieval.Result{Question: "bread?", Mode: retrieval.ModeNormal, Grounded: retrieval.Ground(nil)}
	a, err := retrieval.Generate(context.Background(), newChat(t, srv, 0), res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Refused || a.Text != retrieval.RefusalText || srv.Requests() != 0 {
		t.Errorf("refused %v text %q requests %d", a.Refused, a.Text, srv.Requests())
	}
}

func TestChatErrors(t *testing.T) {
	srv := coheretest.NewServer("right-key")
	defer srv.Close()

	bad, _ := cohere.NewChat(cohere.ChatOptions{APIKey: "wrong-key", BaseURL: srv.URL})
	_, err := retrieval.Generate(context.Background(), bad, answerResult(), nil)
	if !errors.Is(err, retrieval.ErrAuth) || !strings.Contains(err.Error(), "COHERE_API_KEY") || strings.Contains(err.Error(), "wrong-key") {
		t.Errorf("401: %v", err)
	}

	srv.Fail(coheretest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "0"})
	before := srv.Requests()
	a, err := retrieval.Generate(context.Background(), newChat(t, srv, 0), answerResult(), nil)
	if err != nil || srv.Requests()-before != 2 || !strings.HasPrefix(a.Text, "From the textbook: ROS 2 is a middleware") {
		t.Errorf("429 then success: %v, %d requests, %q", err, srv.Requests()-before, a.Text)
	}

	unknown, _ := cohere.NewChat(cohere.ChatOptions{APIKey: "right-key", BaseURL: srv.URL, Model: "command-nope"})
	_, err = retrieval.Generate(context.Background(), unknown, answerResult(), nil)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "--chat-model") {
		t.Errorf("unknown model: %v", err)
	}
}

func TestChatTimeoutAndCancel(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()

	// The stream stalls after its first piece: the idle timer ends it.
	srv.Reply(coheretest.ChatReply{Pieces: []string{"one ", "two"}, Stall: 1})
	var got string
	_, err := retrieval.Generate(context.Background(), newChat(t, srv, 100*time.Millisecond), answerResult(), func(d retrieval.Delta) { got += d.Text })
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within") || got != "one " {
		t.Errorf("timeout: %v, text %q", err, got)
	}

	// Cancelling mid-stream stops it; nothing lands after cancel returns.
	srv.Reply(coheretest.ChatReply{Pieces: []string{"one ", "two ", "three"}, Stall: 2})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = retrieval.Generate(ctx, newChat(t, srv, 0), answerResult(), func(d retrieval.Delta) {
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

	// A stream that ends without message-end is an error, not a short answer.
	srv.Reply(coheretest.ChatReply{Pieces: []string{"half"}, NoEnd: true})
	_, err = retrieval.Generate(context.Background(), newChat(t, srv, 0), answerResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "broke off") {
		t.Errorf("no end: %v", err)
	}
}

func TestChatLongEventsAndHostileText(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	long := strings.Repeat("word ", 20000) // one event far beyond a 4 KiB read
	srv.Reply(coheretest.ChatReply{Pieces: []string{"\x1b]52;c;cG93bg==\x07evil \x1b[2J", long}})
	a, err := retrieval.Generate(context.Background(), newChat(t, srv, 0), answerResult(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The provider keeps the model's text as written; what prints it
	// sanitises it (cli tests).
	if !strings.HasPrefix(a.Text, "\x1b]52;c;") || len(a.Text) != len("\x1b]52;c;cG93bg==\x07evil \x1b[2J")+len(long) {
		t.Errorf("text of %d bytes", len(a.Text))
	}
}

// A chat (ask, the judge, golden generate) is bound by the rule every
// call follows: a Retry-After past the per-call timeout is not waited.
func TestChatRetryAfterPastTheTimeoutIsNotWaited(t *testing.T) {
	srv := coheretest.NewServer("k")
	defer srv.Close()
	srv.Fail(coheretest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "3600"}, coheretest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "3600"}, coheretest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	_, err := retrieval.Generate(context.Background(), newChat(t, srv, 4*time.Second), answerResult(), nil)
	if !errors.Is(err, retrieval.ErrUnavailable) || srv.Requests() != 1 {
		t.Fatalf("err %v after %d requests, want 1", err, srv.Requests())
	}
	if msg := err.Error(); !strings.Contains(msg, "Cohere rate limit reached (429): asked to wait 1 h, past the 4 s timeout; not retried.") {
		t.Fatalf("message %q", msg)
	}
}
