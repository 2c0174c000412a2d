package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/openai/openaitest"
)

const testChatKey = "co-chat-e2e-7f3a"

func TestAskWithoutChatModelSaysWhatEnablesOne(t *testing.T) {
	code, out, errs := run(t, nil, "", "ask", "What is ROS 2?")
	if code != ExitConfig {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, " 1. [") || !strings.Contains(out, "results") {
		t.Errorf("the retrieval is not printed:\n%s", out)
	}
	for _, v := range []string{"COHERE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "--chat-model"} {
		if !strings.Contains(errs, v) {
			t.Errorf("stderr does not name %s:\n%s", v, errs)
		}
	}
	code, _, errs = run(t, map[string]string{"RAGSCOPE_CHAT_PROVIDER": "cohere"}, "", "ask", "What is ROS 2?")
	if code != ExitConfig || !strings.Contains(errs, "COHERE_API_KEY") {
		t.Errorf("cohere without a key: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, nil, "", "ask", "--chat-provider", "gemini", "What is ROS 2?")
	if code != ExitUsage || !strings.Contains(errs, "auto, cohere or openai") {
		t.Errorf("bad --chat-provider: exit %d\n%s", code, errs)
	}
}

// sourceRank is the rank of the hit that is [Source n] in a query
// document: the hits in context order (documents by best rank, chunks in
// reading order), rebuilt from the JSON.
func sourceRank(t *testing.T, q QueryJSON, n int) int {
	t.Helper()
	hits := make([]retrieval.Hit, len(q.Results))
	for i, h := range q.Results {
		hits[i] = retrieval.Hit{Rank: h.Rank, Chunk: retrieval.Chunk{ID: h.ChunkID, DocPath: h.DocPath, URL: h.URL, Title: h.Title, ChunkIndex: h.ChunkIndex}}
	}
	ordered := retrieval.ContextOrder(hits)
	if n > len(ordered) || q.Grounded.Sources[n-1].URL != q.Results[ordered[n-1].Rank-1].URL {
		t.Fatalf("no hit for source %d", n)
	}
	return ordered[n-1].Rank
}

func TestAskCohereOnDemo(t *testing.T) {
	co := coheretest.NewServer(testChatKey)
	defer co.Close()
	env := map[string]string{"COHERE_API_KEY": testChatKey, "COHERE_BASE_URL": co.URL}
	code, out, errs := run(t, env, "", "ask", "--json", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var doc AskJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Answer
	if a == nil || a.Provider != "cohere" || a.Model != "command-a-03-2025" || !strings.HasPrefix(a.Text, "From the textbook: ") {
		t.Fatalf("answer %+v", a)
	}
	want := sourceRank(t, doc.QueryJSON, 1)
	if len(a.Citations) != 1 || !slices.Equal(a.Citations[0].Ranks, []int{want}) || !slices.Equal(a.CitedRanks, []int{want}) ||
		len(a.UncitedRanks) != len(doc.Results)-1 || a.Usage.OutputTokens == 0 {
		t.Errorf("citations %+v cited %v uncited %v (source 1 is #%d)", a.Citations, a.CitedRanks, a.UncitedRanks, want)
	}
	if n := len(co.LastChat().Documents); n != len(doc.Grounded.Sources) {
		t.Errorf("%d documents sent for %d sources", n, len(doc.Grounded.Sources))
	}
	// Human output: the answer with ranks, cited and uncited hits.
	code, out, errs = run(t, env, "", "ask", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, s := range []string{"Answer · cohere command-a-03-2025", "Citations:", "Cited:\n  #", "Not cited: #", "output tokens"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, testChatKey) || strings.Contains(errs, testChatKey) {
		t.Fatal("the key was printed")
	}
}

func TestAskOpenAILocalServer(t *testing.T) {
	oa := openaitest.NewServer("") // Ollama-like: no key
	defer oa.Close()
	env := map[string]string{"OPENAI_BASE_URL": oa.URL}
	code, out, errs := run(t, env, "", "ask", "--json", "--chat-model", "llama3.2", "-k", "3", "what is a URDF link?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var doc AskJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != QuerySchema || doc.Answer == nil || doc.Answer.Model != "llama3.2" || len(doc.Results) != 3 {
		t.Fatalf("doc %+v", doc)
	}
	if want := sourceRank(t, doc.QueryJSON, 1); !slices.Equal(doc.Answer.CitedRanks, []int{want}) || doc.Answer.Citations[0].Marker != "[Source 1]" {
		t.Errorf("cited %v, want [%d]; %+v", doc.Answer.CitedRanks, want, doc.Answer.Citations)
	}
	if got := oa.LastChat().Messages[0].Content; got != doc.Grounded.SystemInstruction+"\n\n"+doc.Grounded.Context {
		t.Errorf("the system message is not the instruction and context as shown:\n%q", got)
	}
	// Selected-text mode answers from the selection with its instruction.
	code, out, errs = run(t, env, "Topics carry typed messages between nodes.", "ask", "--chat-model", "llama3.2", "--selected-text", "-", "explain this")
	if code != ExitOK || !strings.Contains(out, "From the textbook: Topics carry typed messages between nodes.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if got := oa.LastChat().Messages[0].Content; !strings.HasPrefix(got, retrieval.InstructionSelectedText+"\n\nTopics carry") {
		t.Errorf("selected-text prompt %q", got)
	}
}

func TestAskRefusalSendsNothing(t *testing.T) {
	co := coheretest.NewServer(testChatKey)
	defer co.Close()
	env := map[string]string{"COHERE_API_KEY": testChatKey, "COHERE_BASE_URL": co.URL}
	code, out, errs := run(t, env, "", "ask", "--threshold", "0.99", "what temperature should I bake bread at?")
	if code != ExitNoResults || co.Requests() != 0 || !strings.Contains(out, retrieval.RefusalText) {
		t.Fatalf("exit %d, %d requests\n%s\n%s", code, co.Requests(), out, errs)
	}
	code, out, _ = run(t, env, "", "ask", "--json", "--threshold", "0.99", "what temperature should I bake bread at?")
	var doc AskJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitNoResults || doc.Answer == nil || !doc.Answer.Refused {
		t.Fatalf("exit %d %v %+v", code, err, doc.Answer)
	}
}

func TestAskHostileAnswerAndErrors(t *testing.T) {
	co := coheretest.NewServer(testChatKey)
	defer co.Close()
	env := map[string]string{"COHERE_API_KEY": testChatKey, "COHERE_BASE_URL": co.URL}
	co.Reply(coheretest.ChatReply{
		Pieces:    []string{"\x1b]52;c;cG93bg==\x07Nodes \x1b[2J\x9b31m", "talk over topics.\x1b[0m"},
		Citations: []coheretest.ChatCitation{{Start: 0, End: 40, DocIDs: []string{"source-1", "source-99"}}},
	})
	code, out, errs := run(t, env, "", "ask", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") || strings.Contains(out, "\x9b") || strings.ContainsRune(out, '\u009b') {
		t.Errorf("control characters reached the output:\n%q", out)
	}
	if !strings.Contains(out, "Warning: the answer cites [Source 99], which the context does not have") {
		t.Errorf("no warning for the unknown source:\n%s", out)
	}

	env["COHERE_API_KEY"] = "co-wrong-key-1234"
	code, _, errs = run(t, env, "", "ask", "how do ROS 2 nodes communicate?")
	if code != ExitBackend || !strings.Contains(errs, "COHERE_API_KEY") || strings.Contains(errs, "co-wrong-key-1234") {
		t.Errorf("401: exit %d\n%s", code, errs)
	}
}

func TestEvalWithAnswers(t *testing.T) {
	p := writeSet(t, "answers.yaml", `cases:
  - id: ros2
    question: What is ROS 2?
    expected_modules: [module-1-ros2]
    expected_answer_keywords: [textbook]
  - id: off-topic
    mode: selected_text_only
    question: What is the capital of France?
    selected_text: ROS 2 nodes talk to each other over topics.
    expected_refuse: true
`)
	code, out, errs := run(t, nil, "", "eval", "--answer", p)
	if code != ExitConfig || out != "" || !strings.Contains(errs, "--answer needs a chat model") || !strings.Contains(errs, "OPENAI_BASE_URL") {
		t.Errorf("no chat model (nothing runs): exit %d\n%s\n%s", code, out, errs)
	}
	oa := openaitest.NewServer("")
	defer oa.Close()
	env := map[string]string{"OPENAI_BASE_URL": oa.URL, "RAGSCOPE_CHAT_MODEL": "llama3.2"}
	// The fake answers the off-topic question from the selection instead
	// of declining: that case fails its refuse check.
	code, out, errs = run(t, env, "", "eval", "--answer", p)
	if code != ExitCheck || oa.Chats() != 2 {
		t.Fatalf("exit %d, %d chats\n%s\n%s", code, oa.Chats(), out, errs)
	}
	for _, want := range []string{"(answer check: pass)", "(answer check: fail: expected a refusal, but the model answered)", "answers: 2 generated, 1 failed their checks, citation coverage"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// On Qdrant, auto answers with the embedder's provider: Cohere embeds and
// answers; with the OpenAI embedder, OpenAI answers although a Cohere key
// is set too.
func TestAskOnQdrantUsesTheEmbeddersProvider(t *testing.T) {
	_, co, env := fakes(t)
	code, out, errs := run(t, env, "", "ask", "--json", "how do humanoid robots keep their balance")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var doc AskJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Answer == nil || doc.Answer.Provider != "cohere" || co.Chats() != 1 || !slices.Equal(doc.Answer.CitedRanks, []int{sourceRank(t, doc.QueryJSON, 1)}) {
		t.Fatalf("answer %+v, %d chats", doc.Answer, co.Chats())
	}
	oa, oenv := openAIFakes(t)
	oenv["COHERE_API_KEY"] = testCohereKey // both keys: the embedder's provider answers
	oenv["COHERE_BASE_URL"] = co.URL
	oenv["RAGSCOPE_EMBEDDER"] = "openai"
	code, out, errs = run(t, oenv, "", "ask", "--json", "how do humanoid robots keep their balance")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	doc = AskJSON{}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Answer == nil || doc.Answer.Provider != "openai" || oa.Chats() != 1 || co.Chats() != 1 {
		t.Fatalf("answer %+v, openai chats %d, cohere chats %d", doc.Answer, oa.Chats(), co.Chats())
	}
}
