package cli

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/app"
	"ragscope/retrieval"
	"ragscope/retrieval/provider/openai/openaitest"
)

// leakyFailures are a chat call that fails (5xx on every attempt) with a
// body quoting the key, as some servers do.
func leakyFailures(key string) []openaitest.Failure {
	return failuresOf(openaitest.Failure{Status: 502, ContentType: "application/json",
		Raw: `{"error": {"message": "upstream refused key ` + key + `", "type": "server_error"}}`}, 3)
}

// noKeyIn fails when a file under any of dirs holds key, and returns how
// many files it read.
func noKeyIn(t *testing.T, key string, dirs ...string) int {
	t.Helper()
	n := 0
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			n++
			if b, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(b), key) {
				t.Errorf("%s holds the key:\n%s", p, b)
			}
			return nil
		})
	}
	return n
}

// A chat call refused with an error quoting the key, amid calls that
// succeed: the golden set written (-o) and the answers cached keep what
// the model answered, never the error's text.
func TestGoldenGenerateFilesHoldNoProviderError(t *testing.T) {
	srv, env := goldenServer(t, nil)
	srv.Fail(leakyFailures("sk-gold")...)
	dir := t.TempDir()
	out := filepath.Join(dir, "set.yaml")
	code, stdout, errs := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "6", "--concurrency", "1", "-o", out)
	if code != ExitOK || !strings.Contains(stdout, "2 call failed") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
	}
	if strings.Contains(stdout+errs, "sk-gold") {
		t.Errorf("the key is printed:\n%s%s", stdout, errs)
	}
	if n := noKeyIn(t, "sk-gold", dir, env["XDG_CACHE_HOME"]); n < 2 {
		t.Errorf("%d files written, want the set and the cache's", n)
	}
}

// The judge's cache and eval's report, with a judge call refused with an
// error quoting the key: the report shows it redacted, the cache keeps
// only judgements.
func TestJudgeFilesHoldNoProviderError(t *testing.T) {
	srv, env, file := judgeEvalEnv(t)
	srv.Fail(leakyFailures("sk-judge")...)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	code, out, errs := run(t, env, "", "eval", "--judge", "--judge-concurrency", "1", "--latency-sample", "0", "--out", report, file)
	if code != ExitBackend { // a hit the judge could not judge
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The refused call is a hit not judged, its detail in the report.
	b, err := os.ReadFile(report)
	if !strings.Contains(out, "1 not judged") || err != nil || !strings.Contains(string(b), "upstream refused key [redacted]") {
		t.Errorf("the refused call is not reported, redacted (%v):\n%s\n%s", err, out, b)
	}
	if n := noKeyIn(t, "sk-judge", dir, env["XDG_CACHE_HOME"]); n < 2 {
		t.Errorf("%d files written, want the report and the cache's", n)
	}
}

// leakyChat is the chat model of a provider as careless as an SDK can be:
// it logs every call with its key, and its first call fails with an
// error quoting the key (a 5xx the run goes on after). It answers the
// golden and judge schemas.
type leakyChat struct {
	key   string
	log   *slog.Logger
	calls *atomic.Int32
}

func (c leakyChat) Stream(_ context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	if c.log != nil {
		c.log.Debug("fake chat call", "authorization", "Bearer "+c.key)
	}
	if c.calls.Add(1) == 1 {
		return fmt.Errorf("%w: fake chat: 502 from upstream: key %s", retrieval.ErrUnavailable, c.key)
	}
	answer := `{"grade": 2, "reason": "it answers"}`
	if p.Schema != nil {
		switch p.Schema.Name {
		case "golden_questions":
			answer = `{"specific": "Which actuator drives the joint here?", "abstract": "Why does torque control matter for a humanoid?"}`
		case "golden_check":
			answer = `{"answered": true, "reason": "the section states it"}`
		}
	}
	emit(retrieval.Delta{Text: answer, Usage: &retrieval.Usage{InputTokens: 10, OutputTokens: 5}})
	return nil
}
func (leakyChat) Model() string    { return "fake-chat-1" }
func (leakyChat) Provider() string { return "fake" }

// A provider row's chat model that logs its key and quotes it in a failed
// call, amid calls that succeed: golden generate's set (-o), the caches of
// golden generate and of the judge, eval's report and the debug log never
// hold the key, nor do eval's, query's and ask's judge output (text and
// JSON), which quote a call's failure.
func TestProviderRowChatKeyNeverReachesTheFiles(t *testing.T) {
	const key = "fk-PLANTEDchat-314159"
	dir := t.TempDir()
	env := map[string]string{"FAKE_API_KEY": key, "XDG_CACHE_HOME": filepath.Join(dir, "cache"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"golden", "generate", providerDocs(t, dir, 2, 3), "-n", "4", "--concurrency", "1", "-o", filepath.Join(dir, "golden.yaml")}, ExitOK, "call failed"},
		{[]string{"eval", "--judge", "--judge-concurrency", "1", "--latency-sample", "0", "-k", "2", "--out", filepath.Join(dir, "report.json"), filepath.Join(dir, "golden.yaml")}, ExitBackend, "not judged: 1 of "},
		{[]string{"eval", "--json", "--judge", "--judge-concurrency", "1", "--latency-sample", "0", "-k", "2", filepath.Join(dir, "golden.yaml")}, ExitBackend, "[redacted]"},
		{[]string{"query", "--judge", "--judge-concurrency", "1", "-k", "2", "--docs", filepath.Join(dir, "docs"), "which actuator drives the joint?"}, ExitOK, "[redacted]"},
		{[]string{"query", "--json", "--judge", "--judge-concurrency", "1", "-k", "2", "--docs", filepath.Join(dir, "docs"), "which actuator drives the joint?"}, ExitOK, "[redacted]"},
		{[]string{"ask", "--judge", "--judge-concurrency", "1", "-k", "2", "--docs", filepath.Join(dir, "docs"), "which actuator drives the joint?"}, ExitOK, "[redacted]"},
	} {
		p := fakeProvider()
		var calls atomic.Int32
		p.NewChat = func(o app.ModelOptions) (retrieval.Generator, error) {
			return leakyChat{key: o.Config.Key(p.Name).Reveal(), log: o.Log, calls: &calls}, nil
		}
		code, out, errs := runWith(t, append(app.Providers(), p), env, append([]string{"--debug", filepath.Join(dir, "debug.log"), "--chat-provider", "fake"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.says) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s%s", c.args[:2], code, c.code, c.says, out, errs)
		}
		if strings.Contains(out+errs, "PLANTED") {
			t.Errorf("%v: the key is printed:\n%s%s", c.args[:2], out, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "debug.log")); err != nil || !strings.Contains(string(b), "fake chat call") {
		t.Errorf("the debug log lacks the chat model's calls (%v):\n%s", err, b)
	}
	if n := noKeyIn(t, "PLANTED", dir); n < 5 {
		t.Errorf("%d files written, want the set, the report, the log and the caches'", n)
	}
}
