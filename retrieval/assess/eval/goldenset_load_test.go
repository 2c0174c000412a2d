package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestParseNestedYAML(t *testing.T) {
	src := `name: mini
top_k: 7
threshold: 0.2
thresholds: {min_hit_at_k: 0.8, min_mrr: 0.5, max_p95_ms: 1500}
cases:
  - id: q1
    question: What is ROS 2?
    category: ros
    top_k: 3
    filters: {modules: [module-1-ros2], tags: ros2}
    expect:
      modules: module-1-ros2
      chapters: [what-is-ros2]
      doc_paths: [docs/module-1-ros2/01-what-is-ros2.md]
      urls: ["/textbook/docs/module-1-ros2/what-is-ros2#qos"]
      keywords: [DDS]
      max_latency_ms: 900
  - question: Bread?
    expect: {no_answer: true, max_score: 0.3}
  - question: Explain
    mode: selected_text_only
    selected_text: Some text.
    source_doc_path: docs/intro.md
    source_section: Intro
`
	s, err := Parse([]byte(src), "mini.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mini" || s.TopK != 7 || s.Threshold == nil || *s.Threshold != 0.2 {
		t.Errorf("set header = %+v", s)
	}
	if *s.Thresholds.MinHitAtK != 0.8 || *s.Thresholds.MinMRR != 0.5 || *s.Thresholds.MaxP95MS != 1500 {
		t.Errorf("thresholds = %+v", s.Thresholds)
	}
	if len(s.Cases) != 3 {
		t.Fatalf("cases = %d", len(s.Cases))
	}
	c := s.Cases[0]
	if c.ID != "q1" || c.TopK != 3 || c.Category != "ros" || c.Line != 6 ||
		c.Filters.Modules[0] != "module-1-ros2" || c.Filters.Tags[0] != "ros2" ||
		c.Expect.Modules[0] != "module-1-ros2" || c.Expect.Chapters[0] != "what-is-ros2" ||
		len(c.Expect.DocPaths) != 1 || len(c.Expect.URLs) != 1 || c.Expect.Keywords[0] != "DDS" || c.Expect.MaxLatencyMS != 900 {
		t.Errorf("case 0 = %+v", c)
	}
	if s.Cases[1].ID != "case-2" || !s.Cases[1].Expect.NoAnswer || *s.Cases[1].Expect.MaxScore != 0.3 || KindOf(s.Cases[1]) != KindNoAnswer {
		t.Errorf("case 1 = %+v", s.Cases[1])
	}
	if c := s.Cases[2]; c.Mode != retrieval.ModeSelectedText || c.SelectedText != "Some text." || c.SourceDocPath != "docs/intro.md" || KindOf(c) != KindSelectedText {
		t.Errorf("case 2 = %+v", c)
	}
}

// The flat field names of existing RAG test sets, and the original eval contract's
// query_text/expected_chapter, in a top-level JSON list.
func TestParseFlatJSONList(t *testing.T) {
	src := `[
  {"question": "What is ROS 2?", "mode": "normal", "expected_modules": ["module-1-ros2"],
   "expected_keywords": ["DDS"], "expected_urls": ["https://x.org/docs/ros"], "category": "basics",
   "expected_doc_paths": "docs/a.md", "expected_chapters": ["intro"]},
  {"query_text": "Gazebo simulation", "expected_chapter": "module-2-simulation", "difficulty": "easy"},
  {"question": "Summarise", "mode": "selected_text_only", "selected_text": "Text",
   "source_doc_path": "docs/intro.md", "source_section": "Why", "expected_answer": "ignored"}
]`
	s, err := Parse([]byte(src), "set.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 3 || s.Name != "set" {
		t.Fatalf("set = %+v", s)
	}
	a := s.Cases[0]
	if a.Expect.Modules[0] != "module-1-ros2" || a.Expect.Keywords[0] != "DDS" || a.Expect.URLs[0] != "https://x.org/docs/ros" ||
		a.Expect.DocPaths[0] != "docs/a.md" || a.Expect.Chapters[0] != "intro" || a.Category != "basics" || a.Line != 2 {
		t.Errorf("case 0 = %+v", a)
	}
	if b := s.Cases[1]; b.Question != "Gazebo simulation" || b.Expect.Chapters[0] != "module-2-simulation" || b.Line != 5 {
		t.Errorf("case 1 = %+v", b)
	}
	if c := s.Cases[2]; c.Mode != retrieval.ModeSelectedText || c.SourceSection != "Why" {
		t.Errorf("case 2 = %+v", c)
	}
}

func TestParseShapes(t *testing.T) {
	for name, src := range map[string]string{
		"queries.yaml": "queries:\n  - question: a\n    expected_modules: [m]\n",
		"cases.json":   `{"name": "n", "cases": [{"question": "a", "expect": {"modules": ["m"]}}]}`,
		"list.yml":     "- question: a\n  expect: {modules: [m]}\n",
		"noext":        `{"queries": [{"question": "a", "expected_modules": "m"}]}`,
		"noext-yaml":   "cases:\n- question: a\n  expected_modules: m\n",
	} {
		s, err := Parse([]byte(src), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(s.Cases) != 1 || s.Cases[0].Question != "a" || s.Cases[0].Expect.Modules[0] != "m" || s.Cases[0].ID != "case-1" {
			t.Errorf("%s: %+v", name, s.Cases)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	tests := []struct {
		name, file, src string
		line            int
		want            string
	}{
		{"top_k range", "a.yaml", "cases:\n  - question: q\n    expected_modules: [m]\n  - question: r\n    top_k: 500\n    expected_modules: [m]\n", 5, "cases[1].top_k: must be 1..100, got 500"},
		{"top_k type", "a.yaml", "cases:\n  - question: q\n    top_k: five\n    expected_modules: [m]\n", 3, `cases[0].top_k: must be 1..100, got "five"`},
		{"missing question", "a.yaml", "queries:\n  - id: x\n    expected_modules: [m]\n", 2, "queries[0].question: required"},
		{"unknown field", "a.yaml", "- question: q\n  expeced_modules: [m]\n", 2, `cases[0].expeced_modules: unknown field`},
		{"bad mode", "a.yaml", "- question: q\n  mode: fuzzy\n  expected_modules: [m]\n", 2, "cases[0].mode: must be normal or selected_text_only"},
		{"selection missing", "a.yaml", "- question: q\n  mode: selected_text_only\n", 1, "cases[0].selected_text: required"},
		{"duplicate id", "a.yaml", "- {id: a, question: q, expected_modules: m}\n- {id: a, question: r, expected_modules: m}\n", 2, `cases[1].id: "a" is already the id of cases[0]`},
		{"threshold range", "a.yaml", "thresholds: {min_mrr: 1.5}\ncases: [{question: q, expected_modules: m}]\n", 1, "thresholds.min_mrr: must be 0..1"},
		{"yaml syntax", "a.yaml", "cases:\n  - question: q\n    top_k: [\n", 3, "not valid YAML: did not find expected node content"},
		{"yaml tab", "a.yaml", "a:\n\tb: c\n", 2, "not valid YAML"},
		{"json syntax", "a.json", "{\n  \"cases\": [\n    {\"question\": \"q\",}\n  ]\n}\n", 3, "not valid JSON"},
		{"json type", "a.json", "{\n  \"cases\": [\n    {\"question\": \"q\", \"expect\": {\"max_latency_ms\": \"fast\", \"modules\": [\"m\"]}}\n  ]\n}\n", 3, `cases[0].expect.max_latency_ms: want a number, got "fast"`},
		{"json keyword type", "a.json", "[\n {\"question\": \"q\",\n  \"expected_keywords\": [1, {}]}\n]", 3, "cases[0].expected_keywords[1]: want a string"},
		{"not a list", "a.yaml", "cases: {question: q}\n", 1, "cases: want a list of cases"},
		{"empty", "a.yaml", "  \n", 0, "the file is empty"},
		{"no_answer and expectation", "a.yaml", "- question: q\n  expect: {no_answer: true, modules: [m]}\n", 2, "cannot also expect"},
		{"both lists", "a.yaml", "cases: []\nqueries: []\n", 2, "either"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src), tt.file)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		var le *LoadError
		if !errors.As(err, &le) || !errors.Is(err, ErrInvalidSet) {
			t.Errorf("%s: %T %v is not a LoadError", tt.name, err, err)
			continue
		}
		if le.Line != tt.line || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), tt.file+":") {
			t.Errorf("%s: got %q (line %d), want line %d and %q", tt.name, err, le.Line, tt.line, tt.want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "golden.yml")
	if err := os.WriteFile(p, []byte("- question: q\n  expected_modules: m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(p)
	if err != nil || s.Name != "golden" || s.Source != p {
		t.Fatalf("LoadFile = %+v, %v", s, err)
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFilterCategories(t *testing.T) {
	s := Set{Cases: []Case{{ID: "a", Category: "ros"}, {ID: "b", Category: "Sim"}, {ID: "c"}}}
	got, err := s.FilterCategories([]string{"sim"})
	if err != nil || len(got.Cases) != 1 || got.Cases[0].ID != "b" {
		t.Errorf("filter = %+v, %v", got.Cases, err)
	}
	if _, err := s.FilterCategories([]string{"nope"}); !errors.Is(err, ErrNoCases) {
		t.Errorf("no match: %v", err)
	}
}

// A case with no expectation is valid (golden import writes them; a judge
// measures them): it is unlabelled.
func TestParseCaseWithoutExpectation(t *testing.T) {
	set, err := Parse([]byte("- question: q\n- question: r\n  expected_modules: [m]\n"), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Cases) != 2 || KindOf(set.Cases[0]) != KindUnlabelled || KindOf(set.Cases[1]) != KindRanking {
		t.Fatalf("%+v", set.Cases)
	}
}
