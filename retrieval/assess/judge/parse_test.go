package judge

import (
	"strings"
	"testing"
)

func TestParseRelevanceTolerant(t *testing.T) {
	for _, tc := range []struct {
		in     string
		grade  int
		reason string
	}{
		{`{"grade": 3, "reason": "It answers."}`, 3, "It answers."},
		{"```json\n{\"grade\": 2, \"reason\": \"partly\"}\n```", 2, "partly"},
		{`Here is my grade: {"Grade": "1", "reason": "related\n  only"} Thanks.`, 1, "related only"},
		{`{"grade": 0.0}`, 0, ""},
		{`{"GRADE": 2, "reason": 5}`, 2, ""},
	} {
		p := parseRelevance(tc.in)
		if p.status != Judged || p.grade != tc.grade || p.reason != tc.reason {
			t.Fatalf("%q: %+v", tc.in, p)
		}
	}
	long := parseRelevance(`{"grade": 1, "reason": "` + strings.Repeat("x", 500) + `"}`)
	if n := len([]rune(long.reason)); n != MaxReason {
		t.Fatalf("reason of %d runes", n)
	}
}

func TestParseRelevanceNeverInventsAGrade(t *testing.T) {
	for _, tc := range []struct {
		in     string
		status Status
		detail string
	}{
		{`The passage answers the question, grade 3.`, Invalid, "not a JSON object"},
		{`{"grade": 3`, Invalid, "not a JSON object"},
		{`[3]`, Invalid, "not a JSON object"},
		{`{"score": 3, "reason": "x"}`, Invalid, "no grade"},
		{`{"grade": "high"}`, Invalid, "not a whole number"},
		{`{"grade": 2.5}`, Invalid, "not a whole number"},
		{`{"grade": null}`, Invalid, "not a whole number"},
		{`{"grade": 4, "reason": "very"}`, OutOfRange, "grade 4 is outside 0-3"},
		{`{"grade": -1}`, OutOfRange, "grade -1 is outside 0-3"},
		{``, Invalid, "not a JSON object"},
	} {
		p := parseRelevance(tc.in)
		if p.status != tc.status || !strings.Contains(p.detail, tc.detail) || p.grade != 0 {
			t.Fatalf("%q: %+v", tc.in, p)
		}
	}
}

func TestPromptsLoadAndVersion(t *testing.T) {
	p, err := loadPrompt(relevanceFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.version, "relevance-v1+") || len(p.version) != len("relevance-v1+")+12 {
		t.Fatalf("version %q", p.version)
	}
	pr, err := p.render(passage{Question: "What is ROS?", Title: "Intro", Text: "ROS is middleware."}, relevanceSchema())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pr.Question, "Question: What is ROS?") || !strings.Contains(pr.Question, `from "Intro"`) ||
		!strings.Contains(pr.Question, "ROS is middleware.") || strings.Contains(pr.Question, "section") || !strings.Contains(pr.Instruction, "3 = the passage answers") {
		t.Fatalf("prompt %+v", pr)
	}
	if pr.Schema == nil || pr.Schema.Name != "relevance_grade" {
		t.Fatal("no schema")
	}
}

func TestEveryPromptFileLoads(t *testing.T) {
	entries, err := promptFiles.ReadDir("prompts")
	if err != nil || len(entries) < 2 {
		t.Fatalf("%v %d", err, len(entries))
	}
	seen := map[string]bool{}
	for _, e := range entries {
		p, err := loadPrompt("prompts/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if seen[p.version] {
			t.Fatalf("two prompts share version %s", p.version)
		}
		seen[p.version] = true
	}
}
