package cli

import (
	"strings"
	"testing"
)

// A case with not-relevant marks (saved from the explorer) reports the
// precision over its labelled hits and says when a hit marked not
// relevant ranked above the relevant one; it still passes.
func TestEvalNotRelevantLabels(t *testing.T) {
	set := writeSet(t, "marked.yaml", `cases:
  - id: physical-ai
    question: What makes physical AI different from a chatbot that only lives on a screen?
    expect:
      doc_paths: [docs/module-2-simulation/03-unity-hri.md]
      not_relevant: {doc_paths: [docs/intro.md]}
`)
	code, out, errs := runEvalCLI(t, "eval", set)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"note: 2 hits marked not relevant (#1, #2) ranked above the first relevant hit #3",
		"not-relevant marks: 1 case · precision over labelled hits 0.500 · 1 with a hit marked not relevant above the relevant one",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runEvalCLI(t, "eval", set, "--json")
	if code != ExitOK || !strings.Contains(out, `"not_relevant_above_relevant": [`) || !strings.Contains(out, `"labelled_precision": 0.5`) || !strings.Contains(out, `"not_relevant": true`) {
		t.Fatalf("exit %d, JSON lacks the labels:\n%s", code, out)
	}
}
