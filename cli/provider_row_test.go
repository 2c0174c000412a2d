package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/app"
	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
)

// leakyEmbedder is the embedder of a provider as careless as an SDK can
// be: it logs every call with its key and base URL, and refuses a
// question that says "refused" with an error quoting both.
type leakyEmbedder struct {
	key, base string
	log       *slog.Logger
}

func (e leakyEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.log != nil {
		e.log.Debug("fake call", "authorization", "Bearer "+e.key, "url", e.base)
	}
	for _, t := range texts {
		if strings.Contains(t, "refused") {
			return nil, fmt.Errorf("%w: fake: 401 Unauthorized: key %s refused by %s", retrieval.ErrAuth, e.key, e.base)
		}
	}
	return fakeEmbedder{}.Embed(context.Background(), texts)
}
func (leakyEmbedder) Name() string { return "fake-embed-1" }
func (leakyEmbedder) Dim() int     { return coheretest.Dim }

// leakyProvider is fakeProvider with the leaky embedder, and a chat model
// whose constructor fails quoting the key.
func leakyProvider() app.Provider {
	p := fakeProvider()
	p.NewEmbedder = func(_ context.Context, o app.EmbedOptions) (app.QueryEmbedder, error) {
		return leakyEmbedder{key: o.Config.Key(p.Name).Reveal(), base: o.Config.BaseURL(p.Name), log: o.Log}, nil
	}
	p.NewChat = func(o app.ModelOptions) (retrieval.Generator, error) {
		return nil, fmt.Errorf("%w: fake chat: key %s is not allowed", retrieval.ErrConfig, o.Config.Key(p.Name).Reveal())
	}
	return p
}

// A provider row added by a test alone (no other file knows it) declares
// its key, FAKE_API_KEY: the key is hidden from the --debug log, the
// error messages and every file ragscope writes, though the provider
// logs it and quotes it in its errors; and the row's input limit of its
// model reaches the chunk audit.
func TestProviderRowSecretRedactedEverywhere(t *testing.T) {
	const key = "fk-PLANTEDkey-271828"
	_, _, env := fakes(t)
	delete(env, "COHERE_API_KEY")
	env["FAKE_API_KEY"] = key
	env["FAKE_BASE_URL"] = "http://fake.example/v1"
	table := append(app.Providers(), leakyProvider())
	dir := t.TempDir()
	env["XDG_STATE_HOME"] = filepath.Join(dir, "state")
	writeTestFile(t, filepath.Join(dir, "set.yaml"), "cases:\n  - {id: one, question: \"How do nodes talk?\", expect: {modules: [module-1-ros2]}}\n  - {id: two, question: \"refused question\", expect: {modules: [module-1-ros2]}}\n")
	// Every case of outage.yaml is refused: eval --vs reports each setup's
	// outage, quoting the provider's error.
	writeTestFile(t, filepath.Join(dir, "outage.yaml"), "cases:\n  - {id: one, question: \"refused question\", expect: {modules: [module-1-ros2]}}\n  - {id: two, question: \"refused again\", expect: {modules: [module-1-ros2]}}\n")
	writeTestFile(t, filepath.Join(dir, "ragscope.toml"), "[setups.fewer]\nretrieval.top_k = 3\n")
	log := filepath.Join(dir, "debug.log")
	runIn := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		a := &App{
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir,
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			Providers: table,
		}
		code := a.Run(context.Background(), append([]string{"--debug", log, "--embedder", "fake"}, args...))
		return code, out.String(), errb.String()
	}
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"query", "how do nodes talk?"}, true},
		{[]string{"query", "--json", "refused question"}, false},
		{[]string{"eval", filepath.Join(dir, "set.yaml"), "--out", filepath.Join(dir, "report.json")}, false},
		{[]string{"ask", "--chat-provider", "fake", "how do nodes talk?"}, false},
		{[]string{"eval", "--json", "--latency-sample", "0", "--vs", "fewer", filepath.Join(dir, "outage.yaml")}, false},
		{[]string{"eval", "--latency-sample", "0", "--vs", "fewer", "--markdown", filepath.Join(dir, "compare.md"), filepath.Join(dir, "outage.yaml")}, false},
	} {
		code, out, errs := runIn(c.args...)
		if (code == ExitOK) != c.ok {
			t.Errorf("%v: exit %d:\n%s%s", c.args, code, out, errs)
		}
		if strings.Contains(out+errs, "PLANTED") {
			t.Errorf("%v: the key is printed:\n%s%s", c.args, out, errs)
		}
		if !c.ok && !strings.Contains(errs, "[redacted]") && !strings.Contains(out, "[redacted]") {
			t.Errorf("%v: the refusal is not shown, redacted:\n%s%s", c.args, out, errs)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), "fake call") || !strings.Contains(string(b), "Bearer [redacted]") {
		t.Errorf("the debug log lacks the provider's redacted record (%v):\n%s", err, b)
	}
	files := noKeyIn(t, "PLANTED", dir)
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil || files < 3 {
		t.Errorf("the report was not written (%v), %d files", err, files)
	}

	// The row's input limit of its model (300 tokens) is the chunk
	// audit's.
	code, out, errs := runIn("chunks", "--json")
	var rep struct {
		Limit struct {
			Model  string `json:"model"`
			Tokens int    `json:"tokens"`
			Known  bool   `json:"known"`
		} `json:"limit"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code == ExitUsage || code == ExitConfig {
		t.Fatalf("chunks: exit %d, %v:\n%s%s", code, err, out, errs)
	}
	if rep.Limit.Model != "fake-embed-1" || rep.Limit.Tokens != 300 || !rep.Limit.Known {
		t.Errorf("the chunk audit's limit is %+v, want fake-embed-1's 300 tokens", rep.Limit)
	}
}

// The configuration's secrets are derived from the rows of the provider
// table it was loaded with: a key of a row that only a test adds is one,
// and so are the credentials of its base URL.
func TestSecretsFollowTheProviderRows(t *testing.T) {
	rows := append(app.Providers(), leakyProvider()).ConfigRows()
	cfg, err := config.Load(config.LoadOptions{Providers: rows, Dir: t.TempDir(), SkipDotEnv: true, LookupEnv: func(k string) (string, bool) {
		v, ok := map[string]string{"FAKE_API_KEY": "fk-PLANTEDkey-1", "FAKE_BASE_URL": "http://me:PLANTEDpw@fake.example/?token=PLANTEDtok"}[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.Secrets(), " ")
	for _, want := range []string{"fk-PLANTEDkey-1", "PLANTEDpw", "PLANTEDtok"} {
		if !strings.Contains(got, want) {
			t.Errorf("Secrets lacks %s: %q", want, got)
		}
	}
	var st config.Setting
	for _, s := range rows.Settings() {
		if s.Name == "fake_api_key" {
			st = s
		}
	}
	if !st.Secret || len(st.Env) != 1 || st.Env[0] != "FAKE_API_KEY" || st.Flag != "" {
		t.Errorf("the row's key setting: %+v", st)
	}
}

// ragscope index with a provider's embedder gives the provider the
// --debug log: the calls it records reach the log with its key hidden,
// beside the build's own record of each embedding pass.
func TestIndexDebugLogRecordsTheProvidersCalls(t *testing.T) {
	const key = "fk-PLANTEDkey-161803"
	dir := t.TempDir()
	env := map[string]string{"FAKE_API_KEY": key, "FAKE_BASE_URL": "http://fake.example/v1", "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	log := filepath.Join(dir, "debug.log")
	idx := filepath.Join(dir, "book.ragscope")
	code, out, errs := runWith(t, append(app.Providers(), leakyProvider()), env,
		"--debug", log, "index", providerDocs(t, dir, 1, 3), "--embedder", "fake", "-o", idx)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(log)
	got := string(b)
	if err != nil || !strings.Contains(got, "fake call") || !strings.Contains(got, "Bearer [redacted]") ||
		!strings.Contains(got, "index embeddings") || !strings.Contains(got, "provider=fake model=fake-embed-1") {
		t.Errorf("the debug log lacks the provider's calls or the build's record (%v):\n%s", err, got)
	}
	if strings.Contains(got+out+errs, "PLANTED") {
		t.Errorf("the key is written:\n%s\n%s%s", got, out, errs)
	}
}
