package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/assess/golden"
	"ragscope/retrieval/provider/openai/openaitest"
)

// bookDocs is a real public Docusaurus textbook committed for tests.
func bookDocs(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("../retrieval/store/local/testdata/readers/robotics-textbook/docs")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// goldenServer is a chat fake honouring the golden schemas: pass 1 asks
// about the section's first words; a section whose text holds "Newton"
// gets prose (a malformed answer); pass 2 says every question is
// answered. onChat, when set, runs on each chat.
func goldenServer(t *testing.T, onChat func(n int)) (*openaitest.Server, map[string]string) {
	t.Helper()
	srv := openaitest.NewServer("sk-gold")
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	n := 0
	srv.Structured(func(r openaitest.ChatRequest) string {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if onChat != nil {
			onChat(k)
		}
		user := r.Messages[len(r.Messages)-1].Content
		if r.ResponseFormat.JSONSchema.Name == "golden_check" {
			return `{"answered": true, "reason": "the section states it"}`
		}
		_, text, _ := strings.Cut(user, "\n\n")
		if strings.Contains(text, "Newton") {
			return "These are good questions about mechanics."
		}
		w := strings.FieldsFunc(text, func(r rune) bool { return r < 'A' || r > 'z' || (r > 'Z' && r < 'a') })
		w = append(w, "x", "y", "z", "q")
		return fmt.Sprintf(`{"specific": "Where is %s %s %s defined?", "abstract": "Why does %s %s %s matter for a humanoid?"}`, w[0], w[1], w[2], w[1], w[2], w[3])
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-gold", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	return srv, env
}

func TestGoldenGenerateFromADocsFolder(t *testing.T) {
	srv, env := goldenServer(t, nil)
	out := filepath.Join(t.TempDir(), "set.yaml")
	code, stdout, errs := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "12", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, w := range []string{golden.Marker, "# model: openai/gpt-4o-mini", "# prompt: questions-v1+", "# date: ", "# source: local docs ", "content sha256 ", "-n 12 --seed 1: 6 sections, 12 questions asked"} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in the file:\n%s", w, text)
		}
	}
	set, err := eval.LoadFile(out)
	if err != nil {
		t.Fatalf("the eval loader refuses the file: %v\n%s", err, text)
	}
	if len(set.Cases) == 0 || len(set.Cases) > 12 {
		t.Fatalf("%d cases", len(set.Cases))
	}
	for _, c := range set.Cases {
		if len(c.Expect.DocPaths) != 1 || !strings.HasPrefix(c.Expect.DocPaths[0], "docs/") || len(c.Expect.URLs) != 1 || !strings.Contains(c.Expect.URLs[0], "/docs/") {
			t.Fatalf("case %s expects %+v", c.ID, c.Expect)
		}
	}
	calls := srv.Chats()
	for _, w := range []string{fmt.Sprintf("Wrote %d questions to %s (6 sections, 12 questions asked)", len(set.Cases), out), "Dropped ", "Chat openai/gpt-4o-mini · prompts questions-v1+", fmt.Sprintf(" · %d calls (", calls), "0 of 6 sections from the cache"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("no %q in:\n%s", w, stdout)
		}
	}
	// A re-run on the unchanged book, to another file: no call, the same
	// cases.
	out2 := filepath.Join(t.TempDir(), "again.yaml")
	code, stdout, errs = run(t, env, "", "golden", "generate", bookDocs(t), "-n", "12", "-o", out2)
	if code != ExitOK || srv.Chats() != calls || !strings.Contains(stdout, " · 0 calls (0 in + 0 out tokens)") {
		t.Fatalf("re-run: exit %d, %d chats (was %d)\n%s\n%s", code, srv.Chats(), calls, stdout, errs)
	}
	set2, err := eval.LoadFile(out2)
	if err != nil || fmt.Sprint(set2.Cases) != fmt.Sprint(set.Cases) {
		t.Fatalf("re-run wrote other cases: %v", err)
	}
	// Another seed samples other sections.
	code, _, _ = run(t, env, "", "golden", "generate", bookDocs(t), "-n", "12", "--seed", "9", "-o", out2)
	if set3, _ := eval.LoadFile(out2); code != ExitOK || fmt.Sprint(set3.Cases) == fmt.Sprint(set.Cases) {
		t.Fatalf("--seed 9: exit %d, same cases", code)
	}
	// The set runs in eval against the same book.
	code, stdout, errs = run(t, env, "", "eval", out, "--docs", bookDocs(t))
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, errs)
	}
}

func TestGoldenGenerateBadInputsMakeNoCall(t *testing.T) {
	srv, env := goldenServer(t, nil)
	dir := t.TempDir()
	handWritten := filepath.Join(dir, "golden.yaml")
	if err := os.WriteFile(handWritten, []byte("cases:\n  - question: mine\n    expect: {doc_paths: [docs/intro.md]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noModel := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string
	}{
		{"no chat model", noModel, []string{"-o", filepath.Join(dir, "a.yaml")}, ExitConfig, []string{"no chat model configured", "COHERE_API_KEY", "OPENAI_API_KEY", "Ollama"}},
		{"folder missing", env, []string{"-o", filepath.Join(dir, "nope", "a.yaml")}, ExitConfig, []string{"cannot write", "no such file or directory"}},
		{"output is a folder", env, []string{"-o", dir}, ExitConfig, []string{"is a folder"}},
		{"hand-written file", env, []string{"-o", handWritten}, ExitUsage, []string{"was not written by 'ragscope golden generate'", "--force"}},
		{"no -o", env, nil, ExitUsage, []string{"needs -o FILE"}},
		{"-n 0", env, []string{"-n", "0", "-o", filepath.Join(dir, "a.yaml")}, ExitUsage, []string{"-n must be"}},
		{"both sources", env, []string{bookDocs(t), "--index", "x.idx", "-o", filepath.Join(dir, "a.yaml")}, ExitUsage, []string{"not both"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := run(t, c.env, "", append([]string{"golden", "generate"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("no %q in %q", w, errs)
				}
			}
		})
	}
	if srv.Chats() != 0 || srv.Requests() != 0 {
		t.Fatalf("%d calls made", srv.Requests())
	}
	if b, _ := os.ReadFile(handWritten); !strings.Contains(string(b), "question: mine") {
		t.Fatal("the hand-written file was replaced")
	}
	code, _, errs := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "2", "-o", handWritten, "--force")
	if b, _ := os.ReadFile(handWritten); code != ExitOK || !strings.HasPrefix(string(b), golden.Marker) {
		t.Fatalf("--force: exit %d %s", code, errs)
	}
}

func TestGoldenGenerateRefusedKey(t *testing.T) {
	srv, env := goldenServer(t, nil)
	env["OPENAI_API_KEY"] = "sk-wrong"
	out := filepath.Join(t.TempDir(), "set.yaml")
	code, stdout, errs := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "6", "-o", out)
	if code != ExitBackend || !strings.Contains(errs, "the chat model stopped the run after") || !strings.Contains(errs, "key") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) || srv.Requests() > golden.DefaultConcurrency {
		t.Fatalf("file written (%v) or %d requests", err, srv.Requests())
	}
}

func TestGoldenGenerateInterruptedKeepsFinishedCases(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// One section at a time: its question call and its two checks; the
	// fourth call (the second section's questions) presses Ctrl+C.
	srv, env := goldenServer(t, func(n int) {
		if n == 4 {
			cancel()
		}
	})
	out := filepath.Join(t.TempDir(), "set.yaml")
	var stdout, errb strings.Builder
	a := &App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := a.Run(ctx, []string{"golden", "generate", bookDocs(t), "-n", "20", "--concurrency", "1", "-o", out})
	if code != ExitInterrupted {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), errb.String())
	}
	set, err := eval.LoadFile(out)
	if err != nil || len(set.Cases) != 2 || !strings.Contains(stdout.String(), "Stopped early: 9 of 10 sections not worked on") {
		t.Fatalf("cases %d, %v\n%s", len(set.Cases), err, stdout.String())
	}
	// The cache kept the finished section: the next run asks for it again
	// with no call.
	before := srv.Chats()
	code, stdout2, _ := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "20", "--concurrency", "1", "-o", out)
	if code != ExitOK || !strings.Contains(stdout2, "1 of 10 sections from the cache") || srv.Chats() <= before {
		t.Fatalf("exit %d\n%s", code, stdout2)
	}
}

// golden generate against a chat model that answers 500 to everything
// stops after chattask.MaxFailuresInARow failed calls instead of trying
// every section, writes nothing and exits 3 with the cause.
func TestGoldenGenerateModelDownStopsEarly(t *testing.T) {
	srv, env := goldenServer(t, nil)
	srv.Fail(failuresOf(openaitest.Failure{Status: 503}, 200)...)
	out := filepath.Join(t.TempDir(), "set.yaml")
	code, stdout, errs := run(t, env, "", "golden", "generate", bookDocs(t), "-n", "20", "--concurrency", "1", "-o", out)
	if code != ExitBackend || !strings.Contains(errs, "the chat model failed 3 times in a row: The chat server is unavailable (503)") || !strings.Contains(errs, "; the other 7 sections were not tried") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
	}
	// 3 failed calls of 3 attempts, where each of the 10 sections was
	// tried before (30 requests).
	if srv.Requests() != 9 {
		t.Errorf("%d requests, want 9", srv.Requests())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a file was written: %v", err)
	}
}

// TestGoldenGenerateChatModelDown: when every call fails (5xx, an HTML
// page, a timeout, a refused connection, 429 past the retries), nothing
// is written and the run exits 3 naming the last failure, not 1.
func TestGoldenGenerateChatModelDown(t *testing.T) {
	many := func(f openaitest.Failure) []openaitest.Failure { return failuresOf(f, 30) }
	for _, tc := range []struct {
		name    string
		fail    []openaitest.Failure
		latency time.Duration
		refused bool
		want    string
	}{
		{name: "5xx", fail: many(openaitest.Failure{Status: 503}), want: "unavailable (503)"},
		{name: "502 HTML", fail: many(openaitest.Failure{Status: 502, Raw: "<!doctype html><title>Bad gateway</title>", ContentType: "text/html"}), want: "(502)"},
		{name: "timeout", latency: time.Hour, want: "did not answer within"},
		{name: "refused", refused: true, want: "connection refused"},
		{name: "429", fail: many(openaitest.Failure{Status: 429, RetryAfter: "0"}), want: "429"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, env := goldenServer(t, nil)
			srv.Fail(tc.fail...)
			srv.SetLatency(tc.latency)
			if tc.refused {
				srv.Close()
			}
			out := filepath.Join(t.TempDir(), "set.yaml")
			code, stdout, errs := run(t, env, "", "--timeout", "2s", "golden", "generate", bookDocs(t), "-n", "2", "-o", out)
			if code != ExitBackend || !strings.Contains(errs, "no question was kept: nothing written: the chat model failed: ") || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, want %d with %q\n%s\n%s", code, ExitBackend, tc.want, stdout, errs)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("a file was written: %v", err)
			}
		})
	}
}
