package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/ui"
)

// The explorer's judge (J) against the in-process OpenAI-compatible
// server, through the real SDK, the judge and its cache on disk: the
// grades show as a column and the reason in the detail pane; with an
// answer on show J also checks its claims and marks the unsupported one;
// a second session judges the same hits from the cache, with no call.
func TestTUIJudgeGradesHitsAndChecksTheAnswer(t *testing.T) {
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	srv.Structured(func(r openaitest.ChatRequest) string {
		if r.ResponseFormat.JSONSchema.Name == "answer_claims" {
			return `{"claims": [{"claim": "Nodes talk over topics.", "supported": true, "sources": [1], "reason": "Source 1 says so."},
				{"claim": "Nodes run on GPUs.", "supported": false, "sources": [2], "reason": "No source says so.\u001b[31m"}]}`
		}
		return `{"grade": 2, "reason": "Partly answers.\u001b]52;c;ZXZpbA==\u0007"}`
	})
	cache := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": cache}
	judged := func(m ui.Model) bool { return !m.Judging() && strings.HasPrefix(m.Status(), "Judged ") }

	d := newTUIDriver(t, tuiOptionsFor(t, env))
	d.ask("how do ROS 2 nodes communicate?")
	d.until("results", 10*time.Second, idle)
	d.keys("J")
	d.until("the grades", 10*time.Second, judged)
	hits := srv.Chats()
	if hits == 0 || !strings.Contains(d.m.Status(), "judge calls") {
		t.Fatalf("%d chats, status %q", hits, d.m.Status())
	}
	v := d.m.View().Content
	if strings.ContainsAny(sgr.ReplaceAllString(v, ""), "\x1b\x07") {
		t.Fatalf("the judge's control sequences reached the screen: %q", v)
	}
	scr := screen(d.m)
	if strings.Count(scr, "g2 ") != hits || !strings.Contains(scr, "judge       2 partly answers: Partly answers.") {
		t.Fatalf("no grades or reason on screen:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(cache, "ragscope", "judge")); err != nil {
		t.Fatalf("nothing cached: %v", err)
	}

	// The answer, then J: the hits come from the cache, the answer's
	// claims are checked (one call).
	d.keys("a")
	d.until("the answer", 10*time.Second, func(m ui.Model) bool { _, _, ok := m.ShownAnswer(); return ok })
	before := srv.Chats()
	d.keys("J")
	d.until("the check", 10*time.Second, judged)
	if got := srv.Chats() - before; got != 1 {
		t.Fatalf("%d calls for a cached judgement and one answer", got)
	}
	scr = strings.Join(strings.Fields(screen(d.m)), " ")
	for _, want := range []string{"Judge · 1 of 2 claims supported (50%)", "✗ unsupported: Nodes run on GPUs.", "judge: No source says so."} {
		if !strings.Contains(scr, want) {
			t.Errorf("the Answer pane lacks %q:\n%s", want, screen(d.m))
		}
	}

	// Another session: the same hits are judged from the disk cache.
	before = srv.Chats()
	d2 := newTUIDriver(t, tuiOptionsFor(t, env))
	d2.ask("how do ROS 2 nodes communicate?")
	d2.until("results", 10*time.Second, idle)
	d2.keys("J")
	d2.until("the grades", 10*time.Second, judged)
	if srv.Chats() != before || !strings.Contains(d2.m.Status(), "0 judge calls") {
		t.Fatalf("a warm cache made %d calls: %q", srv.Chats()-before, d2.m.Status())
	}
}

// sgr matches the explorer's own styling (colours, bold).
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// Without a chat model J says which variables enable one.
func TestTUIJudgeWithoutChatModel(t *testing.T) {
	d := newTUIDriver(t, tuiOptionsFor(t, nil))
	d.ask("how do ROS 2 nodes communicate?")
	d.until("results", 10*time.Second, idle)
	d.keys("J")
	for _, want := range []string{"The judge needs a chat model.", "OPENAI_API_KEY", "RAGSCOPE_CHAT_PROVIDER"} {
		if !strings.Contains(d.m.Status(), want) {
			t.Errorf("status %q lacks %q", d.m.Status(), want)
		}
	}
}
