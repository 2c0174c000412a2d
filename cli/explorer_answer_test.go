package cli

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/ui"
)

// The explorer's Answer pane against the in-process Cohere (Chat v2,
// native citations) and OpenAI-compatible (chat completions, [Source N]
// markers) servers, through the real SDKs and the Update loop: nothing is
// sent until a asks, the answer streams in, and its citations point at
// the hits whose text the answer quotes, each with its link state.
func TestTUIAnswerCohereAndOpenAI(t *testing.T) {
	for _, p := range []struct {
		name, heading string
		setup         func(t *testing.T) (env map[string]string, chats func() int, hold func() func())
	}{
		{"cohere", "cohere command-a-03-2025", func(t *testing.T) (map[string]string, func() int, func() func()) {
			co := coheretest.NewServer(testChatKey)
			t.Cleanup(co.Close)
			hold := func() func() {
				ch := make(chan struct{})
				co.Reply(coheretest.ChatReply{Pieces: []string{"FIRST piece. ", "SECOND piece."}, Hold: ch})
				return func() { close(ch) }
			}
			return map[string]string{"COHERE_API_KEY": testChatKey, "COHERE_BASE_URL": co.URL}, co.Chats, hold
		}},
		{"openai", "openai llama3.2", func(t *testing.T) (map[string]string, func() int, func() func()) {
			oa := openaitest.NewServer("")
			t.Cleanup(oa.Close)
			// The server stalls after the first piece: leaving the pane
			// cancels the request.
			hold := func() func() {
				oa.Reply(openaitest.ChatReply{Pieces: []string{"FIRST piece. ", "SECOND piece."}, Stall: 1})
				return nil
			}
			return map[string]string{"OPENAI_BASE_URL": oa.URL, "RAGSCOPE_CHAT_MODEL": "llama3.2"}, oa.Chats, hold
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			env, chats, hold := p.setup(t)
			opts := tuiOptionsFor(t, env)
			if opts.Generator == nil {
				t.Fatalf("no chat model: %s", opts.ChatHint)
			}
			d := newTUIDriver(t, opts)
			d.ask("how do ROS 2 nodes communicate?")
			d.until("results", 10*time.Second, idle)
			d.until("history saved", 5*time.Second, func(ui.Model) bool { return d.fed["ui.historySavedMsg"] > 0 })
			if chats() != 0 {
				t.Fatal("a chat was sent before the user asked")
			}
			d.keys("a")
			d.until("the answer", 10*time.Second, func(m ui.Model) bool { _, _, ok := m.ShownAnswer(); return ok })
			a, res, _ := d.m.ShownAnswer()
			if chats() != 1 || a.Provider+" "+a.Model != p.heading || !strings.HasPrefix(a.Text, "From the textbook: ") || a.Usage.OutputTokens == 0 {
				t.Fatalf("%d chats, answer %+v", chats(), a)
			}
			// The fakes quote the first sentence of [Source 1]: the cited
			// hit must be the one whose text that is.
			if len(a.Cited) != 1 || len(a.Citations) != 1 {
				t.Fatalf("cited %v, citations %+v", a.Cited, a.Citations)
			}
			rank := a.Cited[0]
			hit := res.Hits[slices.IndexFunc(res.Hits, func(h retrieval.Hit) bool { return h.Rank == rank })]
			quoted := strings.TrimSuffix(strings.TrimPrefix(a.Text, "From the textbook: "), " [Source 1]")
			if !strings.Contains(strings.Join(strings.Fields(hit.Chunk.Text), " "), strings.TrimSuffix(quoted, ".")) {
				t.Fatalf("citation points at #%d, whose text does not hold %q", rank, quoted)
			}
			d.until("link states", 5*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "link ok") })
			v := screen(d.m)
			for _, want := range []string{p.heading, "From the textbook:", "[" + strconv.Itoa(rank) + "]", "Cited", "Not cited:", "out tokens"} {
				if !strings.Contains(v, want) {
					t.Errorf("the Answer pane lacks %q:\n%s", want, v)
				}
			}
			if strings.Contains(v, "⚠") || strings.Contains(v, testChatKey) {
				t.Errorf("a warning or the key on screen:\n%s", v)
			}

			// Streaming: the first piece is drawn before the rest exists.
			release := hold()
			d.keys("a")
			d.until("the first piece", 10*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "FIRST piece.") })
			if !d.m.Answering() || strings.Contains(screen(d.m), "SECOND") {
				t.Fatalf("not streaming:\n%s", screen(d.m))
			}
			if release == nil {
				d.keys("c")
				if d.m.Answering() {
					t.Fatal("leaving the pane did not cancel the answer")
				}
				a, _, ok := d.m.ShownAnswer()
				if !ok || a.Text != "FIRST piece. " {
					t.Fatalf("after cancelling: %+v\n%s", a, screen(d.m))
				}
				return
			}
			release()
			d.until("the rest", 10*time.Second, func(m ui.Model) bool { return !m.Answering() })
			if v := screen(d.m); !strings.Contains(v, "FIRST piece. SECOND piece.") || !strings.Contains(v, "cites no source") {
				t.Errorf("after the stream:\n%s", v)
			}
		})
	}
}

// Without a chat model the Answer pane names the variables that enable one.
func TestTUIAnswerWithoutChatModel(t *testing.T) {
	opts := tuiOptionsFor(t, nil)
	if opts.Generator != nil {
		t.Fatal("a chat model without any key")
	}
	d := newTUIDriver(t, opts)
	d.ask("how do ROS 2 nodes communicate?")
	d.until("results", 10*time.Second, idle)
	d.until("history saved", 5*time.Second, func(ui.Model) bool { return d.fed["ui.historySavedMsg"] > 0 })
	d.keys("a")
	v := strings.Join(strings.Fields(screen(d.m)), " ")
	for _, want := range []string{"No chat model configured", "COHERE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RAGSCOPE_CHAT_PROVIDER", "RAGSCOPE_CHAT_MODEL"} {
		if !strings.Contains(v, want) {
			t.Errorf("the pane does not name %s:\n%s", want, screen(d.m))
		}
	}
	// A provider asked for by name without its key says what to set.
	opts = tuiOptionsFor(t, map[string]string{"RAGSCOPE_CHAT_PROVIDER": "cohere"})
	if opts.Generator != nil || !strings.Contains(opts.ChatHint, "COHERE_API_KEY") {
		t.Fatalf("cohere without a key: %q", opts.ChatHint)
	}
}
