package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

// On the demo: appending the question's missing words moves the expected
// chunk to #1; a word the question does not ask leaves it where it is; a
// new page from standard input is ranked too; nothing is written.
func TestWhatIfLocal(t *testing.T) {
	doc := rawQuery(t, nil, "-k", "3", "--what-if-add", voiceRef+"=robot words turn", voiceQ)
	w := doc["what_if"].([]any)[0].(map[string]any)
	hasKeys(t, "what_if", w, "ref", "rank", "score", "from_rank", "from_score")
	if w["rank"].(float64) != 1 || w["from_rank"].(float64) != 2 || w["score"].(float64) <= w["from_score"].(float64) {
		t.Fatalf("what-if %v: want #1, up from #2 with a higher score", w)
	}

	code, out, errs := run(t, nil, "# Teaching plan\n\nThe course teaches a robot to turn spoken words into text.\n", "query", "-k", "3",
		"--what-if-add", "docs/module-1-ros2/01-what-is-ros2.md=zebra", "--what-if", "NEW=-", voiceQ)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"What if:\n",
		"  as a new page, NEW would rank #1 (",
		"  with your edit, docs/module-1-ros2/01-what-is-ros2.md would rank #",
		", where it is now (",
		"; nothing is written",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestWhatIfBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.md")
	if err := os.WriteFile(empty, []byte("  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--what-if", "docs/a.md"}, "give REF=FILE"},
		{[]string{"--what-if", "docs/a.md=" + filepath.Join(dir, "missing.md")}, "missing.md"},
		{[]string{"--what-if", voiceRef + "=" + empty}, "is empty: give the chunk's new text"},
		{[]string{"--what-if-add", "NEW=words"}, "for a new page give --what-if NEW=FILE"},
		{[]string{"--explain=false", "--what-if-add", voiceRef + "=words"}, "leave out --explain=false"},
		{[]string{"--what-if-add", "docs/no-such-page.md=words"}, "not in the collection; closest doc paths"},
		{[]string{"--local-search", "hybrid", "--what-if-add", voiceRef + "=robot"}, "ragscope: Configuration: a what-if on a local index scores BM25; this one searches in hybrid mode: run the what-if with --local-search bm25"},
	} {
		code, _, errs := run(t, nil, "", append(append([]string{"query"}, c.args...), voiceQ)...)
		if code == ExitOK || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}

// On Qdrant the edited chunk is embedded once, as a document, with the
// query's model, and ranked among the candidates by the collection's
// distance.
func TestWhatIfQdrantOneDocumentCall(t *testing.T) {
	_, co, env := fakes(t)
	q := "How do publishers and subscribers exchange messages?"
	ref := "docs/module-3-isaac/04-reinforcement-learning.md"
	doc := rawQuery(t, env, "-k", "2", "--what-if-add", ref+"=publishers and subscribers exchange messages", q)
	if n := co.Requests(); n != 3 {
		t.Fatalf("%d embed calls, want 3 (the question, its variants, the edited chunk)", n)
	}
	if r := co.LastRequest(); r.InputType != "search_document" || len(r.Texts) != 1 || r.Model != "embed-english-v3.0" {
		t.Fatalf("the edit was embedded as %s with %s (%d texts)", r.InputType, r.Model, len(r.Texts))
	}
	w := doc["what_if"].([]any)[0].(map[string]any)
	if w["rank"].(float64) >= w["from_rank"].(float64) {
		t.Fatalf("what-if %v: the question's words did not move it up", w)
	}
}

// A what-if on a hybrid collection cannot be ranked (an edit's BM25 arm
// score needs Qdrant's term statistics): exit 2 saying so and what does
// work, the dense arm alone, which ranks it.
func TestWhatIfQdrantHybridRefused(t *testing.T) {
	_, _, env := fakes(t)
	e := with(env, "QDRANT_COLLECTION", qdranttest.CollectionHybrid)
	ref := "docs/module-4-vla/02-voice-commands.md"
	code, out, errs := run(t, e, "", "query", "-k", "3", "--what-if-add", ref+"=microphone", "Whisper voice commands")
	if code != ExitConfig || !strings.Contains(errs, "hybrid (RRF) search") || !strings.Contains(errs, "--fusion dense") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, e, "", "query", "-k", "3", "--fusion", "dense", "--what-if-add", ref+"=microphone", "Whisper voice commands")
	if code != ExitOK || !strings.Contains(out, "with your edit, "+ref+" would rank #") {
		t.Fatalf("--fusion dense: exit %d:\n%s%s", code, out, errs)
	}
}
