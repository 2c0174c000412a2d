// Command fakechat serves the in-process fake of OpenAI's chat completions
// API (retrieval/openai/openaitest) on a loopback port, so that
// screenshots/make.sh can show the Answer pane without a network or a
// key. It writes the base URL to the file named by -url-file and serves
// until it is interrupted. Every answer is the first sentence of the
// context's first source, cited as [Source N], streamed a word at a time.
// Chats that ask for structured output are the judge's: a passage is
// graded by how many of the question's words it has, and an answer's
// claims are checked the same way, so the judge screenshots show a spread
// of grades without a model.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"ragscope/retrieval/openai/openaitest"
)

func main() {
	urlFile := flag.String("url-file", "", "write the server's base URL (…/v1) to this file")
	flag.Parse()
	if *urlFile == "" {
		fmt.Fprintln(os.Stderr, "fakechat: -url-file is required")
		os.Exit(64)
	}
	// An empty key: the fake takes requests without an Authorization
	// header, as a local OpenAI-compatible server does.
	srv := openaitest.NewServer("")
	defer srv.Close()
	srv.SetLatency(150 * time.Millisecond)
	srv.Structured(judge)
	if err := os.WriteFile(*urlFile, []byte(srv.URL), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fakechat:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

// judge answers the judge's structured chats (retrieval/judge's prompts):
// relevance by the share of the question's longer words the passage has,
// faithfulness by the same test of each sentence against the sources.
func judge(r openaitest.ChatRequest) string {
	user := ""
	for _, m := range r.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	if r.ResponseFormat.JSONSchema.Name == "answer_claims" {
		return claims(user)
	}
	q, passage, _ := strings.Cut(user, "\n")
	share := overlap(strings.TrimPrefix(q, "Question: "), passage)
	grade, reason := 0, "The passage is about something else."
	switch {
	case share >= 0.75:
		grade, reason = 3, "The passage answers the question directly."
	case share >= 0.5:
		grade, reason = 2, "Part of the answer is here, among other things."
	case share >= 0.25:
		grade, reason = 1, "Related to the topic, but it does not answer the question."
	}
	b, _ := json.Marshal(map[string]any{"grade": grade, "reason": reason})
	return string(b)
}

// claims checks each sentence of the answer (between "Answer:" and
// "Sources:") against the sources.
func claims(user string) string {
	_, rest, _ := strings.Cut(user, "Answer:")
	answer, sources, _ := strings.Cut(rest, "Sources:")
	type claim struct {
		Claim     string `json:"claim"`
		Supported bool   `json:"supported"`
		Sources   []int  `json:"sources"`
		Reason    string `json:"reason"`
	}
	var out []claim
	for _, sent := range strings.Split(answer, ". ") {
		sent = strings.TrimSpace(sent)
		if sent == "" {
			continue
		}
		c := claim{Claim: sent, Supported: overlap(sent, sources) >= 0.6, Sources: []int{1}, Reason: "Source 1 says so."}
		if !c.Supported {
			c.Reason = "No source says this."
		}
		out = append(out, c)
	}
	b, _ := json.Marshal(map[string]any{"claims": out})
	return string(b)
}

// overlap is the share of q's words of four letters or more found in text.
func overlap(q, text string) float64 {
	text = strings.ToLower(text)
	n, found := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		if len(w) < 4 {
			continue
		}
		n++
		if strings.Contains(text, w) {
			found++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(found) / float64(n)
}
