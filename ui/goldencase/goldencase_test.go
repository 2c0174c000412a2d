package goldencase

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/common"
)

func hit(id, doc, url string) retrieval.Hit {
	return retrieval.Hit{Chunk: retrieval.Chunk{ID: id, DocPath: doc}, Citation: retrieval.Citation{URL: url}}
}

// A turn of marked hits (one of them left out) and its case.
func markedTurn() *common.Turn {
	return &common.Turn{
		N:     1,
		Query: retrieval.Query{Question: "  how do I scale?  ", Mode: retrieval.ModeNormal, Filters: retrieval.Filters{Modules: []string{"ops"}}},
		Result: retrieval.Result{
			Hits: []retrieval.Hit{
				hit("a", "docs/scale.md", "https://x/scale#replicas"),
				hit("b", "docs/scale.md", "https://x/scale#history"),
				hit("c", "docs/other.md", "https://x/other"),
				hit("d", "", "https://x/nopage"),
				hit("e", "docs/same.md", "https://x/same"),
				hit("f", "docs/same.md", "https://x/same"),
			},
			Dropped: []retrieval.DroppedHit{{Hit: hit("g", "docs/left.md", "")}},
		},
		Marks: map[string]common.Mark{
			"a": common.MarkRelevant, "b": common.MarkNotRelevant, "c": common.MarkNotRelevant,
			"d": common.MarkRelevant, "e": common.MarkRelevant, "f": common.MarkNotRelevant,
			"g": common.MarkRelevant,
		},
	}
}

// Relevant marks expect pages; a page marked both ways names sections,
// and a not-relevant mark with no section to tell it apart is not saved.
func TestFromTurn(t *testing.T) {
	tu := markedTurn()
	c, note := FromTurn(tu)
	if c.Question != "how do I scale?" || c.Mode != retrieval.ModeNormal || !reflect.DeepEqual(c.Filters.Modules, []string{"ops"}) {
		t.Fatalf("case = %+v", c)
	}
	if want := []string{"docs/same.md", "docs/left.md"}; !reflect.DeepEqual(c.Expect.DocPaths, want) {
		t.Errorf("doc paths %v, want %v", c.Expect.DocPaths, want)
	}
	if want := []string{"https://x/scale#replicas", "https://x/nopage"}; !reflect.DeepEqual(c.Expect.URLs, want) {
		t.Errorf("urls %v, want %v", c.Expect.URLs, want)
	}
	if want := []string{"docs/other.md"}; !reflect.DeepEqual(c.Expect.NotRelevant.DocPaths, want) {
		t.Errorf("not relevant doc paths %v, want %v", c.Expect.NotRelevant.DocPaths, want)
	}
	if want := []string{"https://x/scale#history"}; !reflect.DeepEqual(c.Expect.NotRelevant.URLs, want) {
		t.Errorf("not relevant urls %v, want %v", c.Expect.NotRelevant.URLs, want)
	}
	if want := "; 1 mark not saved (no page, or the same page as a relevant hit without a section)"; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	// The case has its own filters.
	c.Filters.Modules[0] = "changed"
	if tu.Query.Filters.Modules[0] != "ops" {
		t.Error("the case shares the turn's filters")
	}
}

// A selected-text turn saves its selection and no filters.
func TestFromTurnSelectedText(t *testing.T) {
	tu := &common.Turn{Query: retrieval.Query{Question: "why?", Mode: retrieval.ModeSelectedText, SelectedText: "the text",
		SourceDocPath: "docs/a.md", Filters: retrieval.Filters{Tags: []string{"x"}}}}
	c, note := FromTurn(tu)
	if c.SelectedText != "the text" || c.SourceDocPath != "docs/a.md" || !c.Filters.IsEmpty() || note != "" {
		t.Fatalf("case %+v note %q", c, note)
	}
}

// An opened case's result gets its marks back from its expectation; a
// re-run of the question on show keeps the marks of hits still there and
// its file; another question starts fresh.
func TestCarried(t *testing.T) {
	prev := markedTurn()
	prev.CaseFile = "golden.yaml"
	res := retrieval.Result{Hits: []retrieval.Hit{hit("a", "docs/scale.md", ""), hit("z", "docs/other.md", "")}}
	o := Opened{Seq: 7, Expect: &eval.Expect{DocPaths: []string{"docs/scale.md"}, NotRelevant: eval.NotRelevant{DocPaths: []string{"docs/other.md"}}}, File: "set.yaml"}

	marks, file := o.Carried(7, prev, prev.Query, &res)
	if want := map[string]common.Mark{"a": common.MarkRelevant, "z": common.MarkNotRelevant}; !reflect.DeepEqual(marks, want) || file != "set.yaml" {
		t.Errorf("opened case: %v %q", marks, file)
	}
	rerun := prev.Query
	rerun.Question, rerun.TopK = "How do I scale?", 3
	marks, file = o.Carried(8, prev, rerun, &res)
	if want := map[string]common.Mark{"a": common.MarkRelevant}; !reflect.DeepEqual(marks, want) || file != "golden.yaml" {
		t.Errorf("re-run: %v %q", marks, file)
	}
	other := prev.Query
	other.Question = "something else"
	if marks, file = o.Carried(8, prev, other, &res); marks != nil || file != "" {
		t.Errorf("another question: %v %q", marks, file)
	}
	if marks, file = o.Carried(8, nil, rerun, &res); marks != nil || file != "" {
		t.Errorf("no turn on show: %v %q", marks, file)
	}
}

// Ref names a hit by doc path, else URL, else chunk id.
func TestRef(t *testing.T) {
	for _, tt := range []struct {
		h    retrieval.Hit
		want string
	}{
		{hit("id", "docs/a.md", "https://x"), "docs/a.md"},
		{hit("id", "", "https://x"), "https://x"},
		{hit("id", "", ""), "id"},
	} {
		if got, want := Ref(tt.h), tt.want; got != want {
			t.Errorf("Ref = %q, want %q", got, want)
		}
	}
}

// A save writes the case and says so; the same question again asks for
// a confirmation; a ~/ path is the home folder.
func TestSaveCmdAndStatus(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	c, note := FromTurn(markedTurn())
	msg := SaveCmd("~/golden.yaml", 1, c, false, note)().(SavedMsg)
	if msg.Err != nil {
		t.Fatal(msg.Err)
	}
	if _, err := os.Stat(filepath.Join(home, "golden.yaml")); err != nil {
		t.Fatalf("not saved under home: %v", err)
	}
	kind, text, confirm := msg.Status()
	if kind != common.StatusOK || confirm || !strings.HasPrefix(text, "saved "+msg.Result.ID+" to ~/golden.yaml (1 case); 1 mark not saved") {
		t.Errorf("saved: %v %q %v", kind, text, confirm)
	}
	again := SaveCmd("~/golden.yaml", 1, c, false, "")().(SavedMsg)
	kind, text, confirm = again.Status()
	if kind != common.StatusErr || !confirm || !strings.Contains(text, "already asks this question: press S again") {
		t.Errorf("same question: %v %q %v", kind, text, confirm)
	}
	replaced := SaveCmd("~/golden.yaml", 1, c, true, "")().(SavedMsg)
	if _, text, _ = replaced.Status(); !strings.HasPrefix(text, "replaced "+msg.Result.ID+" in ~/golden.yaml (1 case)") {
		t.Errorf("replaced: %q", text)
	}
	if _, text, confirm = (SavedMsg{Err: errors.New("disk full")}).Status(); text != "Not saved: disk full" || confirm {
		t.Errorf("failed: %q %v", text, confirm)
	}
}
