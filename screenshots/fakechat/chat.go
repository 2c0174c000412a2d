package main

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"ragscope/retrieval/provider/openai/openaitest"
)

// newServer is the fake chat server: answers for plain chats (openaitest's
// own) and structured, each after latency.
func newServer(latency time.Duration) *openaitest.Server {
	// An empty key: the fake takes requests without an Authorization
	// header, as a local OpenAI-compatible server does.
	srv := openaitest.NewServer("")
	srv.SetLatency(latency)
	srv.Structured(structured)
	return srv
}

// structured answers a chat that asks for a JSON object, by the name of
// its schema: every structured chat ragscope sends has one.
func structured(r openaitest.ChatRequest) string {
	user := ""
	for _, m := range r.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	switch r.ResponseFormat.JSONSchema.Name {
	case "answer_claims":
		return claims(user)
	case "golden_questions":
		return questions(user)
	case "golden_check":
		return check(user)
	}
	return grade(user)
}

// grade answers the judge's relevance chat (relevance_grade): by the share
// of the question's longer words the passage has.
func grade(user string) string {
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
// "Sources:") against the sources (answer_claims).
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

// questions writes golden generate's two questions for a section
// (golden_questions) from the words its text uses most and its heading
// does not, so that neither restates the heading and the check passes.
func questions(user string) string {
	heading, text := section(user)
	ws := topWords(text, heading, 3)
	for len(ws) < 3 {
		ws = append(ws, "robots")
	}
	b, _ := json.Marshal(map[string]string{
		"specific": "What should I know about " + ws[0] + " and " + ws[1] + "?",
		"abstract": "How does " + ws[0] + " work together with " + ws[2] + "?",
	})
	return string(b)
}

// check answers golden generate's check (golden_check): the section
// answers the question when it has most of the question's longer words.
func check(user string) string {
	q, rest, _ := strings.Cut(user, "\n")
	_, text := section(rest)
	ok := overlap(strings.Join(topWords(strings.TrimPrefix(q, "Question: "), "", 10), " "), text) >= 0.5
	reason := "The section explains this."
	if !ok {
		reason = "The section is about something else."
	}
	b, _ := json.Marshal(map[string]any{"answered": ok, "reason": reason})
	return string(b)
}

// section reads "Page: …\nSection: HEADING\n\nTEXT" from a golden prompt.
func section(user string) (heading, text string) {
	_, rest, _ := strings.Cut(user, "Section: ")
	heading, text, _ = strings.Cut(rest, "\n")
	return heading, text
}

// topWords are text's n most used words of five letters or more that the
// heading does not have, most used first (ties alphabetical).
func topWords(text, heading string, n int) []string {
	skip := map[string]bool{}
	for _, w := range wordsOf(heading) {
		skip[w] = true
	}
	count := map[string]int{}
	for _, w := range wordsOf(text) {
		if len(w) >= 5 && !skip[w] && !commonWords[w] {
			count[w]++
		}
	}
	out := make([]string, 0, len(count))
	for w := range count {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(n, len(out))]
}

// commonWords are long words that make no question on their own.
var commonWords = map[string]bool{
	"about": true, "after": true, "their": true, "there": true, "these": true, "those": true, "which": true,
	"would": true, "could": true, "should": true, "where": true, "while": true, "other": true, "every": true,
	"section": true, "chapter": true, "using": true, "because": true, "before": true, "between": true,
	"together": true,
}

// wordsOf is s's words, lower-cased, letters and digits only.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
}

// overlap is the share of q's words of four letters or more found in text.
func overlap(q, text string) float64 {
	text = strings.ToLower(text)
	n, found := 0, 0
	for _, w := range wordsOf(q) {
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
