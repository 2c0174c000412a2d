package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/cli"
)

// ragscope runs the command line against the fake chat server at base,
// on the demo, with its own cache folder and no other environment.
func ragscope(t *testing.T, base string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"OPENAI_BASE_URL": base, "XDG_CACHE_HOME": t.TempDir(), "HOME": t.TempDir()}
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// Every chat task ragscope asks gets a well-formed answer from fakechat: an
// answer with citations, relevance grades, faithfulness claims, and golden
// generate's questions and check (none dropped as unreadable).
func TestFakechatAnswersEveryChatTask(t *testing.T) {
	srv := newServer(0)
	defer srv.Close()

	code, out, errs := ragscope(t, srv.URL, "ask", "--json", "What is ROS 2?")
	var ask cli.AskJSON
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &ask) != nil || ask.Answer == nil || ask.Answer.Text == "" || len(ask.Answer.CitedRanks) == 0 {
		t.Fatalf("ask: exit %d: %s\n%s", code, errs, out)
	}

	code, out, errs = ragscope(t, srv.URL, "query", "--judge", "--json", "how do nodes talk?")
	var q cli.QueryJSON
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &q) != nil || len(q.Results) == 0 {
		t.Fatalf("query --judge: exit %d: %s\n%s", code, errs, out)
	}
	for _, h := range q.Results {
		if h.Judge == nil || h.Judge.Grade == nil || h.Judge.Status != "judged" {
			t.Errorf("query --judge: rank %d not judged: %+v", h.Rank, h.Judge)
		}
	}

	code, out, errs = ragscope(t, srv.URL, "ask", "--judge", "--json", "What is ROS 2?")
	ask = cli.AskJSON{}
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &ask) != nil || ask.Judging == nil || ask.Judging.Faithfulness == nil {
		t.Fatalf("ask --judge: exit %d: %s\n%s", code, errs, out)
	}
	if f := ask.Judging.Faithfulness; f.Status != "judged" || f.Judged == 0 || len(f.Claims) == 0 {
		t.Errorf("ask --judge: faithfulness %+v", f)
	}

	file := filepath.Join(t.TempDir(), "golden.yaml")
	code, out, errs = ragscope(t, srv.URL, "golden", "generate", "-n", "8", "-o", file)
	if code != cli.ExitOK || !strings.Contains(out, "Wrote 8 questions") || !strings.Contains(out, "Dropped 0 of 8") {
		t.Fatalf("golden generate: exit %d: %s\n%s", code, errs, out)
	}
	b, err := os.ReadFile(file)
	if err != nil || strings.Count(string(b), "question: ") != 8 {
		t.Fatalf("golden file: %v\n%s", err, b)
	}
	// The set it wrote runs: eval reads it.
	code, out, errs = ragscope(t, srv.URL, "eval", file)
	if code != cli.ExitOK && code != cli.ExitCheck {
		t.Errorf("eval of the generated set: exit %d: %s\n%s", code, errs, out)
	}
}

// The README says how to run fakechat and point ragscope at it.
func TestReadmeSaysHowToRunFakechat(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go run ./screenshots/fakechat -url-file ", "export OPENAI_BASE_URL=$(cat "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the README lacks %q", want)
		}
	}
}
