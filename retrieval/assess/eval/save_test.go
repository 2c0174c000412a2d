package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ragscope/retrieval"
)

const savedFile = `# My book's golden set
# (hand-written; keep these comments)
name: my-book
top_k: 5

cases:
  # the QoS question
  - id: qos
    question: "My subscriber never gets any data. Why?"   # quoted on purpose
    expect:
        doc_paths: [docs/module-1-ros2/01-what-is-ros2.md]

  - question: What is a node?
    expect: {modules: [module-1-ros2]}
  # trailing comment of the list

thresholds:
  min_hit_at_k: 0.8   # keep
`

func markedCase(q string) Case {
	return Case{
		Question: q,
		Filters:  retrieval.Filters{Modules: []string{"module-2"}},
		Expect: Expect{
			DocPaths:    []string{"docs/module-2/topics.md"},
			NotRelevant: NotRelevant{URLs: []string{"/docs/module-2/topics#intro"}},
		},
	}
}

func TestAddCaseKeepsTheRestByteForByte(t *testing.T) {
	out, res, err := AddCase([]byte(savedFile), "golden.yaml", markedCase("How do topics work?"), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "case-3" || res.Replaced || res.Created || res.Cases != 3 {
		t.Fatalf("result %+v", res)
	}
	// The new case goes after the last case, before the comments and
	// blank lines that close the list; every other byte is the same.
	at := strings.Index(savedFile, "  # trailing comment of the list")
	want := savedFile[:at] + `  - id: case-3
    question: How do topics work?
    filters: {modules: [module-2]}
    expect:
      doc_paths: [docs/module-2/topics.md]
      not_relevant:
        urls: [/docs/module-2/topics#intro]
` + savedFile[at:]
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	set, err := Parse(out, "golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := set.Cases[2]
	if c.ID != "case-3" || c.Expect.NotRelevant.URLs[0] != "/docs/module-2/topics#intro" || c.Filters.Modules[0] != "module-2" {
		t.Fatalf("saved case reads back as %+v", c)
	}
}

func TestAddCaseReplacesOnlyWhenAsked(t *testing.T) {
	c := markedCase("  my subscriber never gets any DATA.   Why? ")
	_, _, err := AddCase([]byte(savedFile), "golden.yaml", c, false)
	var ex *CaseExistsError
	if !errors.As(err, &ex) || !errors.Is(err, ErrCaseExists) || ex.ID != "qos" || ex.Line != 8 {
		t.Fatalf("err %v, want the existing case qos at line 8", err)
	}
	out, res, err := AddCase([]byte(savedFile), "golden.yaml", c, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replaced || res.ID != "qos" || res.Cases != 2 {
		t.Fatalf("result %+v", res)
	}
	// The case's own lines change; its head comment, the blank line after
	// it and everything else stay.
	before := savedFile[:strings.Index(savedFile, "  - id: qos")]
	after := savedFile[strings.Index(savedFile, "\n\n  - question: What is a node?")+1:]
	if !strings.HasPrefix(string(out), before) || !strings.HasSuffix(string(out), after) {
		t.Fatalf("replace touched other lines:\n%s", out)
	}
	if !strings.Contains(string(out), "  - id: qos\n    question: '  my subscriber never gets any DATA.   Why? '\n") {
		t.Fatalf("replaced case:\n%s", out)
	}
	set, err := Parse(out, "golden.yaml")
	if err != nil || len(set.Cases) != 2 || set.Cases[0].Expect.DocPaths[0] != "docs/module-2/topics.md" {
		t.Fatalf("reads back %+v, %v", set.Cases, err)
	}
}

func TestAddCaseUniqueIDs(t *testing.T) {
	// case-2 is the implicit id of the second case; case-3 is taken
	// explicitly: the new case gets case-4.
	data := "- question: a\n  expect: {modules: [m]}\n- question: b\n- id: case-3\n  question: c\n"
	out, res, err := AddCase([]byte(data), "g.yml", Case{Question: "d"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "case-4" {
		t.Fatalf("id %s", res.ID)
	}
	if want := data + "- id: case-4\n  question: d\n"; string(out) != want {
		t.Fatalf("got\n%s", out)
	}
	// A wanted id that is taken is replaced by a free one.
	_, res, err = AddCase([]byte(data), "g.yml", Case{ID: "case-3", Question: "e"}, false)
	if err != nil || res.ID != "case-4" {
		t.Fatalf("id %s, %v", res.ID, err)
	}
}

func TestAddCaseSelectedTextAndNewFile(t *testing.T) {
	c := Case{Question: "Explain this.", Mode: retrieval.ModeSelectedText, SelectedText: "line one\nline two", SourceDocPath: "docs/a.md"}
	out, res, err := AddCase(nil, "golden.yaml", c, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.ID != "case-1" {
		t.Fatalf("result %+v", res)
	}
	set, err := Parse(out, "golden.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := set.Cases[0]
	if got.Mode != retrieval.ModeSelectedText || got.SelectedText != "line one\nline two" || got.SourceDocPath != "docs/a.md" {
		t.Fatalf("reads back %+v\n%s", got, out)
	}
	if !strings.HasPrefix(string(out), "# ragscope golden set") {
		t.Fatalf("no header:\n%s", out)
	}
}

func TestSaveCaseNeverOverwritesAnInvalidFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"bad-yaml.yaml": "cases:\n  - question: a\n    expect: [unclosed\n",
		"bad-set.yaml":  "cases:\n  - question: a\n    top_k: 500\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := SaveCase(path, Case{Question: "b"}, false)
		var le *LoadError
		if !errors.As(err, &le) || le.Line == 0 || !strings.HasPrefix(err.Error(), path+":") {
			t.Fatalf("%s: err %v, want a LoadError with file:line", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Fatalf("%s was written:\n%s", name, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestSaveCaseWritesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.yaml")
	if err := os.WriteFile(path, []byte(savedFile), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := SaveCase(path, markedCase("How do topics work?"), false)
	if err != nil || res.ID != "case-3" {
		t.Fatalf("%+v %v", res, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the file's 0600 kept", fi.Mode().Perm())
	}
	set, err := LoadFile(path)
	if err != nil || len(set.Cases) != 3 {
		t.Fatalf("%d cases, %v", len(set.Cases), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	// A missing file is created; a folder that does not exist is an error.
	if res, err := SaveCase(filepath.Join(dir, "new.yaml"), Case{Question: "q"}, false); err != nil || !res.Created {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := SaveCase(filepath.Join(dir, "no", "such.yaml"), Case{Question: "q"}, false); err == nil {
		t.Fatal("saved into a missing folder")
	}
	if _, err := SaveCase(filepath.Join(dir, "set.json"), Case{Question: "q"}, false); err == nil {
		t.Fatal("saved into JSON")
	}
}

func TestNotRelevantLabelsInTheReport(t *testing.T) {
	c := Case{ID: "c", Question: "q", Expect: Expect{
		DocPaths:    []string{"docs/b.md"},
		NotRelevant: NotRelevant{DocPaths: []string{"docs/a.md"}, URLs: []string{"/docs/c#x"}},
	}}
	hit := func(rank int, doc, url string) retrieval.Hit {
		return retrieval.Hit{Rank: rank, Score: 1 - float64(rank)/10, Chunk: retrieval.Chunk{ID: doc, DocPath: doc}, Citation: retrieval.Citation{URL: url}}
	}
	res := retrieval.Result{Hits: []retrieval.Hit{
		hit(1, "docs/a.md", "https://x.org/docs/a"),
		hit(2, "docs/b.md", "https://x.org/docs/b"),
		hit(3, "docs/c.md", "https://x.org/docs/c#x"),
		hit(4, "docs/d.md", "https://x.org/docs/d"),
	}}
	cr := Evaluate(c, retrieval.Query{TopK: 5}, res)
	l := cr.Labels
	if l == nil || l.Labelled != 3 || l.NotRelevant != 2 || *l.Precision != 1.0/3 {
		t.Fatalf("labels %+v", l)
	}
	if len(l.AboveRelevant) != 1 || l.AboveRelevant[0] != 1 || l.Note != "a hit marked not relevant (#1) ranked above the first relevant hit #2" {
		t.Fatalf("above %v, note %q", l.AboveRelevant, l.Note)
	}
	if !cr.Hits[0].NotRelevant || cr.Hits[1].NotRelevant || !cr.Hits[2].NotRelevant || cr.Hits[3].NotRelevant {
		t.Fatalf("hit flags %+v", cr.Hits)
	}
	if cr.Status != StatusPass {
		t.Fatalf("labels changed the status: %s %v", cr.Status, cr.Reasons)
	}
	s := Summarize([]CaseResult{cr, Evaluate(Case{ID: "u", Question: "u"}, retrieval.Query{TopK: 5}, res)})
	if s.LabelledCases != 1 || s.LabelledPrecision == nil || *s.LabelledPrecision != 1.0/3 || s.NotRelevantAbove != 1 {
		t.Fatalf("summary %+v", s)
	}
	for want, h := range map[int]retrieval.Hit{1: res.Hits[1], -1: res.Hits[0], 0: res.Hits[3]} {
		if got := MarkOf(h, c.Expect); got != want {
			t.Errorf("MarkOf(%s) = %d, want %d", h.Chunk.DocPath, got, want)
		}
	}
}

func TestNotRelevantLoads(t *testing.T) {
	_, err := Parse([]byte("- question: q\n  expect: {not_relevant: {pages: [a]}}\n"), "g.yaml")
	if err == nil || !strings.Contains(err.Error(), "cases[0].expect.not_relevant.pages: unknown field") {
		t.Fatalf("err %v", err)
	}
}

// bigSet is a golden file of n commented cases.
func bigSet(n int) []byte {
	var b strings.Builder
	b.WriteString("# a large set\nname: big\ncases:\n")
	for i := range n {
		fmt.Fprintf(&b, "  # case %d\n  - id: c%d\n    question: \"Question number %d about topic %d?\"\n    category: cat-%d\n    expect:\n      doc_paths: [docs/module-%d/page-%d.md]\n      keywords: [k%d]\n\n", i, i, i, i%7, i%5, i%9, i, i)
	}
	return []byte(b.String())
}

// BenchmarkSaveCase2000 saves a marked turn into a 2,000-case file
// (budget: 50 ms, comments intact), reading and writing the
// file as the explorer does.
func BenchmarkSaveCase2000(b *testing.B) {
	data := bigSet(2000)
	path := filepath.Join(b.TempDir(), "golden.yaml")
	c := markedCase("A new question?")
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := SaveCase(path, c, false); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	out, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(out), string(data[:len(data)-1])) || !strings.Contains(string(out), "# case 1999") {
		b.Fatal("comments or cases lost")
	}
}

// TestSaveCaseIntoACommentsOnlyFile: a set holding only comments (a
// header written before any case) takes the case below them, comments
// kept byte for byte; a second save appends to the list it started.
func TestSaveCaseIntoACommentsOnlyFile(t *testing.T) {
	for _, head := range []string{
		"# Golden set for the robotics book.\n# Owner: docs team\n",
		"\ufeff# no trailing newline",
		"\n  # indented comment\n\n",
	} {
		path := filepath.Join(t.TempDir(), "golden.yaml")
		if err := os.WriteFile(path, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := SaveCase(path, Case{Question: "What is a URDF?", Expect: Expect{DocPaths: []string{"docs/urdf.md"}}}, false)
		if err != nil || res.ID != "case-1" || res.Cases != 1 {
			t.Fatalf("%q: save: %+v, %v", head, res, err)
		}
		if _, err := SaveCase(path, Case{Question: "How do joints work?"}, false); err != nil {
			t.Fatalf("%q: second save: %v", head, err)
		}
		got, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(got), head) {
			t.Fatalf("%q: comments not kept:\n%s", head, got)
		}
		set, err := LoadFile(path)
		if err != nil || len(set.Cases) != 2 || set.Cases[0].Question != "What is a URDF?" || set.Cases[0].Expect.DocPaths[0] != "docs/urdf.md" {
			t.Fatalf("%q: reads back %+v, %v\n%s", head, set, err, got)
		}
	}
}
