package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"ragscope/app"
	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
)

// fakeEmbedder is the fake provider's query embedder: one vector for
// every text, of the test collection's size.
type fakeEmbedder struct{}

func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, coheretest.Dim)
		out[i][0] = 1
	}
	return out, nil
}
func (fakeEmbedder) Name() string { return "fake-embed-1" }
func (fakeEmbedder) Dim() int     { return coheretest.Dim }

// errFakeChat is what the fake provider's chat constructor returns: ask
// printing it shows that auto-resolution chose the fake provider.
var errFakeChat = errors.New("the fake chat model was built")

// fakeProvider is a provider row added by a test alone: its key is
// FAKE_API_KEY, its base URL FAKE_BASE_URL, its models fake-embed-*
// (300 input tokens, the test collection's vector size).
func fakeProvider() app.Provider {
	return app.Provider{
		ProviderRow:      config.ProviderRow{Name: "fake", Title: "Fake", KeyEnv: []string{"FAKE_API_KEY"}, BaseURLEnv: []string{"FAKE_BASE_URL"}},
		Models:           []app.Model{{Name: "fake-embed-*", InputTokens: 300, Dim: coheretest.Dim}},
		DefaultChatModel: "fake-chat-1",
		NewEmbedder: func(context.Context, app.EmbedOptions) (app.QueryEmbedder, error) {
			return fakeEmbedder{}, nil
		},
		NewChat: func(app.ModelOptions) (retrieval.Generator, error) {
			return nil, errFakeChat
		},
		NewReranker: func(app.ModelOptions) (retrieval.Reranker, error) {
			return nil, errFakeRerank
		},
	}
}

// errFakeRerank is what the fake provider's rerank constructor returns.
var errFakeRerank = errors.New("the fake rerank model was built")

// runWith is run with a provider table.
func runWith(t *testing.T, table app.Table, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &App{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Providers: table,
	}
	code := a.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// A provider row added in the test, and no other file, is offered by
// --help, chosen by auto-resolution for embedding and answering, and
// named by the error hints.
func TestProviderRowIsWiredEverywhere(t *testing.T) {
	_, _, env := fakes(t)
	delete(env, "COHERE_API_KEY")
	table := append(app.Providers(), fakeProvider())

	// --help lists it with the embedders and chat providers, and its
	// default chat model.
	code, out, _ := runWith(t, table, env, "--help")
	if code != ExitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, want := range []string{"embedder: auto, cohere, openai, gemini, local or fake", "auto, cohere, openai or fake", "fake-chat-1 on Fake"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}

	// Without its key, the hints name it.
	code, _, errs := runWith(t, table, env, "query", "how do nodes talk?")
	if code != ExitConfig || !strings.Contains(errs, "or GEMINI_API_KEY or FAKE_API_KEY, to embed questions") {
		t.Errorf("embedder hint: exit %d: %s", code, errs)
	}
	code, out, errs = runWith(t, table, nil, "ask", "how do nodes talk?")
	if code != ExitConfig || !strings.Contains(out+errs, "FAKE_API_KEY (Fake)") {
		t.Errorf("chat hint: exit %d:\n%s%s", code, out, errs)
	}

	// With its key, auto embeds and answers with it.
	env["FAKE_API_KEY"] = "fake-key"
	code, out, errs = runWith(t, table, env, "query", "how do nodes talk?")
	if code != ExitOK || !strings.Contains(out, "fake fake-embed-1") {
		t.Errorf("auto embedder: exit %d:\n%s%s", code, out, errs)
	}
	code, _, errs = runWith(t, table, env, "ask", "how do nodes talk?")
	if code == ExitOK || !strings.Contains(errs, errFakeChat.Error()) {
		t.Errorf("auto chat provider: exit %d: %s", code, errs)
	}

	// By name too, on the command line and in the environment, where
	// auto would take Cohere (its key is set and it comes first).
	both := with(env, "COHERE_API_KEY", testCohereKey)
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{both, []string{"query", "--embedder", "fake", "how do nodes talk?"}},
		{with(both, "RAGSCOPE_EMBEDDER", "Fake"), []string{"query", "how do nodes talk?"}},
	} {
		code, out, errs = runWith(t, table, c.env, c.args...)
		if code != ExitOK || !strings.Contains(out, "fake fake-embed-1") {
			t.Errorf("%v: exit %d:\n%s%s", c.args, code, out, errs)
		}
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{both, []string{"ask", "--chat-provider", "fake", "how do nodes talk?"}},
		{with(both, "RAGSCOPE_CHAT_PROVIDER", "fake"), []string{"ask", "how do nodes talk?"}},
	} {
		code, _, errs = runWith(t, table, c.env, c.args...)
		if code == ExitOK || !strings.Contains(errs, errFakeChat.Error()) {
			t.Errorf("%v: exit %d: %s", c.args, code, errs)
		}
	}
	// An unknown name is refused with the table's names.
	code, _, errs = runWith(t, table, both, "query", "--embedder", "voyage", "how do nodes talk?")
	if code != ExitUsage || !strings.Contains(errs, "use auto, cohere, openai, gemini, local or fake") {
		t.Errorf("unknown embedder: exit %d: %s", code, errs)
	}
	code, _, errs = runWith(t, table, both, "ask", "--chat-provider", "voyage", "how do nodes talk?")
	if code != ExitUsage || !strings.Contains(errs, "use auto, cohere, openai or fake") {
		t.Errorf("unknown chat provider: exit %d: %s", code, errs)
	}
}

// When the row that reranks is a new provider's, --rerank asks for its key
// and builds its reranker.
func TestRerankRowComesFromTheTable(t *testing.T) {
	_, _, env := fakes(t)
	table := app.Providers()
	for i := range table {
		table[i].NewReranker = nil
	}
	table = append(table, fakeProvider())

	code, out, errs := runWith(t, table, env, "query", "--rerank", "fake-rerank-1", "how do nodes talk?")
	if code != ExitConfig || !strings.Contains(out+errs, "--rerank fake-rerank-1 is a Fake rerank model: set FAKE_API_KEY, or use --rerank bm25") {
		t.Errorf("without its key: exit %d:\n%s%s", code, out, errs)
	}
	env["FAKE_API_KEY"] = "fake-key"
	code, out, errs = runWith(t, table, env, "query", "--rerank", "fake-rerank-1", "how do nodes talk?")
	if code == ExitOK || !strings.Contains(out+errs, errFakeRerank.Error()) {
		t.Errorf("with its key: exit %d:\n%s%s", code, out, errs)
	}
}

// fakeReranker is a rerank model that keeps the candidates' order.
type fakeReranker struct{}

func (fakeReranker) Rerank(_ context.Context, _ string, docs []string, topN int) ([]retrieval.Relevance, error) {
	out := make([]retrieval.Relevance, 0, len(docs))
	for i := range docs {
		if len(out) < topN {
			out = append(out, retrieval.Relevance{Index: i, Score: 1 / float64(i+1)})
		}
	}
	return out, nil
}
func (fakeReranker) Name() string { return "fake-rerank-1" }

// The header names the provider whose row reranks, not always Cohere.
func TestRerankLabelNamesTheRowsProvider(t *testing.T) {
	_, _, env := fakes(t)
	table := app.Providers()
	for i := range table {
		table[i].NewReranker = nil
	}
	p := fakeProvider()
	p.NewReranker = func(app.ModelOptions) (retrieval.Reranker, error) { return fakeReranker{}, nil }
	table = append(table, p)
	env["FAKE_API_KEY"] = "fake-key"
	code, out, errs := runWith(t, table, env, "query", "--rerank", "fake-rerank-1", "how do nodes talk?")
	if code != ExitOK || !strings.Contains(out, " · rerank fake fake-rerank-1 (1 call per question)") || strings.Contains(out, "cohere fake-rerank") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
	if got := table.RerankLabel("fake-rerank-1"); got != "rerank fake fake-rerank-1 (1 call per question)" {
		t.Errorf("the explorer's label: %q", got)
	}
}
