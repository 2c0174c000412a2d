package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
