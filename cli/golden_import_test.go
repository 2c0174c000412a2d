package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval/assess/eval"
)

// chatLog is a JSONL chatbot log of 50 lines: 40 distinct questions about
// the demo textbook, 5 repeated exactly, 3 near duplicates (case,
// punctuation, a typo), 2 blank ones.
func chatLog(t *testing.T) string {
	t.Helper()
	topics := []string{"ROS 2 nodes", "topics", "services", "QoS", "URDF", "Gazebo", "Isaac Sim", "digital twins",
		"Nav2", "VSLAM", "voice commands", "LLM planning", "the capstone", "humanoid balance", "sensors", "actions",
		"launch files", "tf2", "Unity", "bread baking"}
	var lines []string
	add := func(q string) {
		b, _ := json.Marshal(map[string]any{"ts": len(lines), "question": q, "answer": "…"})
		lines = append(lines, string(b))
	}
	for _, topic := range topics {
		add("What is " + topic + "?")
		add("Why would I use " + topic + " in my robot?")
	}
	for i := range 5 {
		add("What is " + topics[i] + "?")
	}
	add("what is ros 2 nodes")
	add("WHAT IS TOPICS!!")
	add("Why would I use Gazebo in my robott?")
	add("   ")
	add("")
	p := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoldenImportThenEval: a chatbot log becomes a set of unlabelled
// cases that eval loads and runs; eval reports their best scores and
// content gaps, and writes the JUnit and Markdown reports.
func TestGoldenImportThenEval(t *testing.T) {
	log := chatLog(t)
	dir := t.TempDir()
	set := filepath.Join(dir, "golden.yaml")
	code, out, errs := runEvalCLI(t, "golden", "import", log, "-o", set)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"chat.jsonl (JSONL): 50 lines read: 40 questions kept; dropped 2 empty, 5 exact duplicates, 3 near duplicates",
		`near duplicate: line 46 "what is ros 2 nodes" repeats line 1 "What is ROS 2 nodes?"`,
		"Wrote 40 unlabelled cases to " + set + " (q-001 … q-040).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s, err := eval.LoadFile(set)
	if err != nil {
		t.Fatalf("eval cannot load the imported set: %v", err)
	}
	if len(s.Cases) != 40 || s.Cases[0].ID != "q-001" || s.Cases[0].Question != "What is ROS 2 nodes?" || s.Cases[39].ID != "q-040" {
		t.Fatalf("cases: %d, first %+v", len(s.Cases), s.Cases[0])
	}
	for _, c := range s.Cases {
		if eval.KindOf(c) != eval.KindUnlabelled {
			t.Errorf("%s is %s", c.ID, eval.KindOf(c))
		}
	}

	junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	code, out, errs = runEvalCLI(t, "eval", set, "--threshold", "0.3", "--junit", junit, "--markdown", md)
	if code != ExitOK {
		t.Fatalf("eval: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"UNLABELLED best ", "0 pass · 40 unlabelled · 0 miss", "Unlabelled questions (40; no expectation, so no pass or fail)",
		"best score: min ", "questions find nothing above 0.30 (the run's threshold)", "lowest best scores (10 of 40):",
		"NO LABELS: 40 unlabelled cases ran; none has an expectation to pass or fail",
		"Overall (0 ranking cases of 40)\n  hit@1 - · hit@k - · MRR - · nDCG@k - · recall@k -\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("eval output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name      string `xml:"name,attr"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, b)
	}
	if doc.Tests != 41 || doc.Failures != 0 || len(doc.Suite.Cases) != 41 ||
		doc.Suite.Cases[0].Name != "q-001: What is ROS 2 nodes?" || !strings.Contains(doc.Suite.Cases[0].SystemOut, "unlabelled") {
		t.Errorf("junit: %d tests, %d failures, first %+v", doc.Tests, doc.Failures, doc.Suite.Cases[0])
	}
	b, err = os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## ragscope eval: golden — ➖ NO LABELS", "| 40 | 0 | 0 | 0 | 0 | 40 | - |", "### Unlabelled questions (40)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b)
		}
	}
}

// TestGoldenImportFormats: CSV with a named column, plain lines on
// standard input written to standard output, and --format over the
// extension.
func TestGoldenImportFormats(t *testing.T) {
	dir := t.TempDir()
	csvFile := filepath.Join(dir, "q.csv")
	os.WriteFile(csvFile, []byte("when,User Question\n1,What is a URDF?\n2,\"What is a\nURDF?\"\n3,How do I launch Gazebo?\n"), 0o600)
	out := filepath.Join(dir, "set.yaml")
	code, stdout, errs := runEvalCLI(t, "golden", "import", csvFile, "--column", "user question", "-o", out)
	if code != ExitOK || !strings.Contains(stdout, "(CSV): 3 rows read: 2 questions kept; dropped 1 exact duplicate") {
		t.Fatalf("csv: exit %d\n%s\n%s", code, stdout, errs)
	}
	if s, err := eval.LoadFile(out); err != nil || len(s.Cases) != 2 || s.Cases[1].Question != "How do I launch Gazebo?" {
		t.Errorf("csv set: %+v, %v", s.Cases, err)
	}

	code, stdout, errs = run(t, nil, "What is ROS 2?\n\nwhat is ROS 2\nWhy is my robot slow?\n", "golden", "import", "-", "-o", "-")
	if code != ExitOK {
		t.Fatalf("stdin: exit %d\n%s", code, errs)
	}
	if s, err := eval.Parse([]byte(stdout), "set.yaml"); err != nil || len(s.Cases) != 2 {
		t.Errorf("stdout is not the set: %v\n%s", err, stdout)
	}
	if !strings.Contains(errs, "standard input (one question a line): 4 lines read: 2 questions kept; dropped 1 empty, 1 near duplicate") ||
		!strings.Contains(errs, "to standard output") {
		t.Errorf("stderr: %s", errs)
	}

	txt := filepath.Join(dir, "log.txt")
	os.WriteFile(txt, []byte(`{"q": "What is Nav2?"}`+"\n"), 0o600)
	code, stdout, errs = runEvalCLI(t, "golden", "import", txt, "--format", "jsonl", "--field", "q", "-o", filepath.Join(dir, "nav.yaml"))
	if code != ExitOK || !strings.Contains(stdout, "(JSONL): 1 line read: 1 question kept") {
		t.Errorf("--format jsonl: exit %d\n%s\n%s", code, stdout, errs)
	}
}

// TestGoldenImportBadInput: a missing FILE, a folder, invalid CSV, JSONL
// without the field, a malformed JSONL line and bad flags are exit 64
// with a message that says where, and no set is written.
func TestGoldenImportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "set.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{filepath.Join(dir, "nope.jsonl")}, "nope.jsonl does not exist"},
		{"folder", []string{dir}, "is a folder, not a file of questions"},
		{"invalid CSV", []string{write("bad.csv", "question\n\"open quote\n")}, "bad.csv:2: not valid CSV"},
		{"CSV without the column", []string{write("cols.csv", "id,text\n1,What?\n")}, `the header has no column "question"; it has: "id", "text"`},
		{"JSONL without the field", []string{write("nofield.jsonl", `{"text": "What?"}`+"\n")}, `no line has the field "question"; the first has: "text"`},
		{"bad JSON line", []string{write("bad.jsonl", "{\"question\": \"a\"}\n\n{\"question\": \n")}, "bad.jsonl:3: not valid JSON"},
		{"empty", []string{write("empty.txt", "\n  \n")}, "holds no question (2 lines read: 0 questions kept; dropped 2 empty)"},
		{"format", []string{write("ok.txt", "What?\n"), "--format", "xml"}, `--format: unknown format "xml"`},
		{"two files", []string{write("a.txt", "What?\n"), write("b.txt", "Why?\n")}, "golden import takes one FILE"},
	} {
		code, stdout, errs := runEvalCLI(t, append([]string{"golden", "import", "-o", out}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want 64 with %q (stdout %q)", tc.name, code, errs, tc.want, stdout)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: a set was written", tc.name)
		}
	}
	code, _, errs := runEvalCLI(t, "golden", "import", write("q.txt", "What?\n"))
	if code != ExitUsage || !strings.Contains(errs, "-o set.yaml") {
		t.Errorf("no -o: exit %d, %s", code, errs)
	}
	code, _, errs = runEvalCLI(t, "golden", "imprt", "q.txt")
	if code != ExitUsage || !strings.Contains(errs, `unknown golden command "imprt"`) {
		t.Errorf("unknown golden command: exit %d, %s", code, errs)
	}
}

// TestGoldenImportOutputChecked: an -o that cannot be written is exit 2
// before FILE is read (a missing FILE would be 64); an existing -o is
// replaced only with --force, atomically.
func TestGoldenImportOutputChecked(t *testing.T) {
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "missing", "set.yaml"), dir} {
		code, stdout, errs := runEvalCLI(t, "golden", "import", filepath.Join(dir, "nope.jsonl"), "-o", out)
		if code != ExitConfig || !strings.Contains(errs, "-o") || stdout != "" {
			t.Errorf("-o %s: exit %d, want 2\n%s\n%s", out, code, stdout, errs)
		}
	}
	in := filepath.Join(dir, "q.txt")
	os.WriteFile(in, []byte("What is ROS 2?\n"), 0o600)
	out := filepath.Join(dir, "golden.yaml")
	os.WriteFile(out, []byte("# my labelled set\n"), 0o600)
	code, _, errs := runEvalCLI(t, "golden", "import", in, "-o", out)
	if b, _ := os.ReadFile(out); code != ExitUsage || !strings.Contains(errs, "exists: give --force") || string(b) != "# my labelled set\n" {
		t.Errorf("existing -o: exit %d, %s, file %q", code, errs, b)
	}
	code, _, errs = runEvalCLI(t, "golden", "import", in, "-o", out, "--force")
	if b, _ := os.ReadFile(out); code != ExitOK || !strings.Contains(string(b), "question: What is ROS 2?") {
		t.Errorf("--force: exit %d, %s, file %q", code, errs, b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestEvalReportFilesCheckedFirst: a --junit or --markdown file that
// cannot be written is exit 2 before any case runs.
func TestEvalReportFilesCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--junit", filepath.Join(dir, "missing", "junit.xml")},
		{"--markdown", dir},
	} {
		code, stdout, errs := runEvalCLI(t, append([]string{"eval"}, args...)...)
		if code != ExitConfig || stdout != "" || !strings.Contains(errs, args[0]) {
			t.Errorf("%v: exit %d, want 2 before the run\nstdout: %s\nstderr: %s", args, code, stdout, errs)
		}
	}
	// The demo set's reports: every case a testcase, the verdict passing.
	junit, md := filepath.Join(dir, "j.xml"), filepath.Join(dir, "s.md")
	code, _, errs := runEvalCLI(t, "eval", "--junit", junit, "--markdown", md)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(junit)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Failures != 0 || doc.Tests < 20 {
		t.Errorf("junit: %+v, %v", doc, err)
	}
	b, _ = os.ReadFile(md)
	if !strings.Contains(string(b), "## ragscope eval: demo-textbook — ✅ PASS") || !strings.Contains(string(b), "### By category") {
		t.Errorf("markdown:\n%s", b)
	}
}
