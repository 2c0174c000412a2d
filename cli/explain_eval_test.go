package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explainSetFixture is a docs folder and a golden set whose two misses
// both ask with "course" where the expected page says "curriculum".
func explainSetFixture(t *testing.T) (docs, set string) {
	t.Helper()
	root := t.TempDir()
	docs = filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"curriculum.md": "# Curriculum\n\n## Overview\n\nThe curriculum covers speech recognition, robot joint control and a capstone.\n",
		"syllabus.md":   "# Syllabus\n\n## Labs\n\nThe syllabus of the curriculum lists labs on kinematics and perception.\n",
		"logistics.md":  "# Logistics\n\n## Schedule\n\nThe course meets weekly; every course session has a course lab and the course ends with a project.\n",
		"sensors.md":    "# Sensors\n\n## Lidar\n\nA lidar measures distance with laser pulses.\n",
	}
	for n, p := range pages {
		if err := os.WriteFile(filepath.Join(docs, n), []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	set = filepath.Join(root, "set.yaml")
	yaml := `name: explain-fixture
top_k: 1
cases:
  - id: q12
    question: What does the course cover about speech?
    expect: {doc_paths: [docs/curriculum.md]}
  - id: q31
    question: Which labs does the course have?
    expect: {doc_paths: [docs/syllabus.md]}
  - id: q40
    question: What does a lidar measure?
    expect: {doc_paths: [docs/sensors.md]}
`
	if err := os.WriteFile(set, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return docs, set
}

func TestEvalExplain(t *testing.T) {
	docs, set := explainSetFixture(t)
	md := filepath.Join(t.TempDir(), "summary.md")
	code, out, errs := run(t, nil, "", "--docs", docs, "eval", set, "--explain", "--latency-sample", "0", "--markdown", md)
	if code != ExitCheck {
		t.Fatalf("exit %d (want the misses' 4): %s", code, errs)
	}
	for _, want := range []string{
		"Vocabulary gaps (question word → the expected pages' nearest words: missed cases):\n  course → curriculum",
		": q12, q31\n",
		"Suggestions for the misses:\n  q12 (docs/curriculum.md): -k 2 would include it (it ranks #2)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "### Vocabulary gaps\n\n| question word | the pages say | missed cases |\n|---|---|---|\n| course | curriculum") {
		t.Errorf("markdown:\n%s", b)
	}

	code, out, _ = run(t, nil, "", "--docs", docs, "eval", set, "--explain", "--json", "--latency-sample", "0")
	if code != ExitCheck {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Explain struct {
			Gaps []struct {
				Term    string   `json:"term"`
				Nearest []string `json:"nearest"`
				Cases   []string `json:"cases"`
			} `json:"vocabulary_gaps"`
			Misses []struct {
				ID         string         `json:"id"`
				Suggestion string         `json:"suggestion"`
				Explain    map[string]any `json:"explain"`
			} `json:"misses"`
		} `json:"explain"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Explain.Gaps) == 0 || doc.Explain.Gaps[0].Term != "course" || strings.Join(doc.Explain.Gaps[0].Cases, ",") != "q12,q31" {
		t.Fatalf("gaps %+v", doc.Explain.Gaps)
	}
	if len(doc.Explain.Misses) != 2 || doc.Explain.Misses[0].Explain["terms"] == nil {
		t.Fatalf("misses %+v", doc.Explain.Misses)
	}
}
