package goldenimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/assess/eval"
)

func texts(qs []Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Text
	}
	return out
}

func TestReadJSONL(t *testing.T) {
	in := "\ufeff" + `{"question": "  What is   ROS 2?\n", "answer": "x"}
{"event": "feedback"}

{"question": null}
{"question": "   "}
{"question": "How do I install Isaac Sim?"}
`
	qs, st, err := Read(context.Background(), strings.NewReader(in), Options{Name: "log.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(qs), []string{"What is ROS 2?", "How do I install Isaac Sim?"}; !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
	if qs[1].Line != 6 {
		t.Errorf("line %d, want 6", qs[1].Line)
	}
	if st.Format != FormatJSONL || st.Records != 6 || st.Empty != 2 || st.NoField != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestReadJSONLNestedField(t *testing.T) {
	in := `{"request": {"question": "Why is my robot slow?"}}
{"request.question": "Literal key wins"}
`
	qs, _, err := Read(context.Background(), strings.NewReader(in), Options{Format: FormatJSONL, Field: "request.question"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(qs), []string{"Why is my robot slow?", "Literal key wins"}; !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
}

// TestReadJSONLBadInput: a malformed line, a line that is not an object
// and a field that is not a string stop the import with the line number;
// a file where no line has the field names the fields it has.
func TestReadJSONLBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"bad JSON", "{\"question\": \"ok\"}\n{\"question\": \"oops\"\n", "log.jsonl:2: not valid JSON"},
		{"array", "{\"question\": \"ok\"}\n[1, 2]\n", "log.jsonl:2: a JSON array, not an object"},
		{"two values", "{\"question\": \"a\"} {\"question\": \"b\"}\n", "log.jsonl:1: more than one JSON value"},
		{"number", "{\"question\": 42}\n", `log.jsonl:1: field "question" is a number, not a string`},
		{"no field", "{\"text\": \"a\", \"user\": \"u\"}\n{\"text\": \"b\"}\n", `no line has the field "question"; the first has: "text", "user"`},
	} {
		_, _, err := Read(context.Background(), strings.NewReader(tc.in), Options{Name: "log.jsonl"})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrInput with %q", tc.name, err, tc.want)
		}
	}
}

func TestReadCSV(t *testing.T) {
	in := "\ufeffid,User Question,lang\n1,\"How do I launch\nGazebo?\",en\n2,,en\n3\n4,What is a URDF?,en\n"
	qs, st, err := Read(context.Background(), strings.NewReader(in), Options{Name: "q.csv", Column: "user question"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(qs), []string{"How do I launch Gazebo?", "What is a URDF?"}; !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
	if qs[0].Line != 2 || qs[1].Line != 6 {
		t.Errorf("lines %d, %d, want 2, 6", qs[0].Line, qs[1].Line)
	}
	if st.Format != FormatCSV || st.Records != 4 || st.Empty != 1 || st.NoField != 1 {
		t.Errorf("stats %+v", st)
	}
	qs, _, err = Read(context.Background(), strings.NewReader("question\tother\nWhat is SLAM?\tx\n"), Options{Name: "q.tsv"})
	if err != nil || len(qs) != 1 || qs[0].Text != "What is SLAM?" {
		t.Errorf("tsv: %q, %v", texts(qs), err)
	}
}

func TestReadCSVBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no column", "id,text\n1,What?\n", `q.csv:1: the header has no column "question"; it has: "id", "text"`},
		{"bad quote", "question\n\"What is\" ROS?\n", "q.csv:2: not valid CSV"},
		{"empty", "", "q.csv: the file is empty"},
	} {
		_, _, err := Read(context.Background(), strings.NewReader(tc.in), Options{Name: "q.csv"})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrInput with %q", tc.name, err, tc.want)
		}
	}
}

func TestReadLines(t *testing.T) {
	qs, st, err := Read(context.Background(), strings.NewReader("What is ROS 2?\r\n\r\n  \nHow do I bake bread?"), Options{Name: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(qs), []string{"What is ROS 2?", "How do I bake bread?"}; !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
	if st.Format != FormatLines || st.Records != 4 || st.Empty != 2 || qs[1].Line != 4 {
		t.Errorf("stats %+v, lines %v", st, qs)
	}
	// A line starting with { is JSON only when the format says so or
	// nothing else does: --format lines reads it as a question.
	qs, _, _ = Read(context.Background(), strings.NewReader("{weird} question\n"), Options{Format: FormatLines})
	if len(qs) != 1 || qs[0].Text != "{weird} question" {
		t.Errorf("--format lines: %q", texts(qs))
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       Format
	}{
		{"a.jsonl", "", FormatJSONL},
		{"a.NDJSON", "", FormatJSONL},
		{"a.csv", "{", FormatCSV},
		{"a.tsv", "", FormatCSV},
		{"a.txt", "{\"q\": 1}", FormatLines},
		{"-", "\n  {\"question\": \"x\"}\n", FormatJSONL},
		{"-", "What is ROS?\n{", FormatLines},
		{"log", "\ufeff{\"q\": 1}", FormatJSONL},
	} {
		if got := Detect(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", tc.name, tc.head, got, tc.want)
		}
	}
	for in, want := range map[string]Format{"": FormatAuto, "auto": FormatAuto, "JSONL": FormatJSONL, "csv": FormatCSV, "lines": FormatLines} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %s, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) did not fail")
	}
}

func TestDedup(t *testing.T) {
	in := []Question{
		{"How do I install ROS 2 on Ubuntu?", 1},
		{"What is a digital twin?", 2},
		{"How do I install ROS 2 on Ubuntu?", 3},      // exact
		{"how do i install ros 2 on ubuntu", 4},       // same normalised text
		{"How do I instal ROS 2 on Ubunto?", 5},       // typos: 2 edits in 31 runes
		{"What is a digital twin ?!", 6},              // punctuation
		{"How do I install Isaac Sim on Ubuntu?", 7},  // different question
		{"How do I install ROS2 on Ubuntu", 17},       // spacing
		{"How do I test ROS 2 on Ubuntu?", 18},        // another word, not a typo: kept
		{"What is tf?", 8},                            // short: must normalise equal
		{"What is rl?", 9},                            // 2 edits in 10 runes: kept
		{"Wht is a digitl twin", 10},                  // 2 edits in 22 runes: 2 allowed
		{"What does a digital twin let me test?", 11}, // different
		{"What is the difference between ROS 1 and ROS 2?", 12},
		{"What is the difference between ROS 1 and ROS 2", 13},
		{"What is the difference between ROS 2 and ROS 2?", 14}, // other numbers: kept
		{"What does chapter 3 say about balance?", 15},
		{"What does chapter 4 say about balance?", 16}, // other number: kept
	}
	kept, drops, err := Dedup(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"How do I install ROS 2 on Ubuntu?", "What is a digital twin?", "How do I install Isaac Sim on Ubuntu?",
		"How do I test ROS 2 on Ubuntu?", "What is tf?", "What is rl?", "What does a digital twin let me test?", "What is the difference between ROS 1 and ROS 2?",
		"What is the difference between ROS 2 and ROS 2?", "What does chapter 3 say about balance?", "What does chapter 4 say about balance?"}
	if got := texts(kept); !reflect.DeepEqual(got, want) {
		t.Errorf("kept %q\nwant %q", got, want)
	}
	reasons := map[int]Reason{}
	for _, d := range drops {
		reasons[d.Question.Line] = d.Reason
		if d.Of.Line >= d.Question.Line {
			t.Errorf("line %d dropped as a duplicate of a later line %d", d.Question.Line, d.Of.Line)
		}
	}
	if want := map[int]Reason{17: ReasonNear, 3: ReasonExact, 4: ReasonNear, 5: ReasonNear, 6: ReasonNear, 10: ReasonNear, 13: ReasonNear}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("drops %v, want %v", reasons, want)
	}
}

// TestDedupManyDistinct: distinct questions that share most of their
// words are all kept (the bigram signature only rules pairs out).
func TestDedupManyDistinct(t *testing.T) {
	topics := []string{"balance", "gait", "grasping", "vision", "lidar", "SLAM", "URDF", "Gazebo", "Isaac", "Nav2"}
	verbs := []string{"tune", "debug", "explain", "simulate", "test"}
	var in []Question
	for _, topic := range topics {
		for _, verb := range verbs {
			for k := range 20 {
				in = append(in, Question{Text: fmt.Sprintf("How do I %s %s on robot %d?", verb, topic, k), Line: len(in) + 1})
			}
		}
	}
	kept, drops, err := Dedup(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(in) || len(drops) != 0 {
		t.Errorf("kept %d of %d, dropped %v", len(kept), len(in), drops[:min(3, len(drops))])
	}
}

func TestImportWritesALoadableSet(t *testing.T) {
	in := `{"question": "What is ROS 2?"}
{"question": "what is ros 2"}
{"question": "Why does my subscriber get no data?"}
{"question": "key: \"quoted\" # not a comment\n- not a list"}
{"question": "What is ROS 2?"}
`
	qs, drops, st, err := Import(context.Background(), strings.NewReader(in), Options{Name: "log.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept != 3 || st.Exact != 1 || st.Near != 1 || len(drops) != 2 {
		t.Errorf("stats %+v, drops %v", st, drops)
	}
	var b bytes.Buffer
	h := Header{Source: "log\x1b[31m.jsonl\nx", Field: "question", Stats: st, Date: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}
	if err := WriteSet(&b, h, qs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# Imported by `ragscope golden import` on 2026-11-26 from log [31m.jsonl x (JSONL, field \"question\").",
		"# 5 lines read: 3 questions kept; dropped 1 exact duplicate, 1 near duplicate\n",
		"  - id: q-001\n    question: What is ROS 2?\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("set lacks %q:\n%s", want, out)
		}
	}
	set, err := eval.Parse(b.Bytes(), "golden.yaml")
	if err != nil {
		t.Fatalf("eval cannot load the set: %v\n%s", err, out)
	}
	if len(set.Cases) != 3 || set.Cases[2].ID != "q-003" || set.Cases[2].Question != "key: \"quoted\" # not a comment - not a list" {
		t.Errorf("cases %+v", set.Cases)
	}
	for _, c := range set.Cases {
		if eval.KindOf(c) != eval.KindUnlabelled {
			t.Errorf("case %s is %s, want unlabelled", c.ID, eval.KindOf(c))
		}
	}
}

func TestIDs(t *testing.T) {
	if got := []string{ID(0, 3), ID(1, 3), ID(2, 3)}; !reflect.DeepEqual(got, []string{"q-001", "q-002", "q-003"}) {
		t.Errorf("ID(i, 3) = %q", got)
	}
	if first, last := ID(0, 1200), ID(1199, 1200); first != "q-0001" || last != "q-1200" {
		t.Errorf("ID(i, 1200) = %q … %q", first, last)
	}
}

// TestWriteSetEscapesBidiControls checks that bidi controls in imported
// questions are written as escapes (as ESC, BEL and C1 are), never raw,
// and that the set loads back with the questions as read.
func TestWriteSetEscapesBidiControls(t *testing.T) {
	qs := []Question{
		{Text: "is \u202eevil\u202c here?"},
		{Text: "isolate \u2066x\u2069 and \u200e\u200f\u061c marks"},
		{Text: "bell \a esc \x1b[31m nel \u0085"},
	}
	var b bytes.Buffer
	if err := WriteSet(&b, Header{Source: "log\u202e.txt", Date: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}, qs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, r := range out {
		if (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c || (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) {
			t.Fatalf("raw %U at byte %d:\n%s", r, i, out)
		}
	}
	if !strings.Contains(out, `question: "is \u202Eevil\u202C here?"`) {
		t.Errorf("bidi controls not escaped:\n%s", out)
	}
	set, err := eval.Parse(b.Bytes(), "golden.yaml")
	if err != nil {
		t.Fatalf("eval cannot load the set: %v\n%s", err, out)
	}
	for i, q := range qs {
		if set.Cases[i].Question != q.Text {
			t.Errorf("case %d loads as %q, want %q", i, set.Cases[i].Question, q.Text)
		}
	}
}
