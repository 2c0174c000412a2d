package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/spf13/cobra"

	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// hostileText is what a hostile collection writes into every field: an
// OSC 52 clipboard write, an OSC 8 hyperlink, screen clears and colours
// (7-bit and C1 forms), NEL, CR, BS, BEL, DEL and bidi overrides and
// isolates (a NUL would make the page binary: the Qdrant payloads add
// one). Its visible words ("click", "evil", "iso") are what a
// sanitised line still shows.
const hostileText = "\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.test/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[31m\u009b31m\u009d0;t\u009c\u0085\r\b\a\x7f\u202eevil\u202c\u2066iso\u2069\u200e\u200f\u061c"

// hostileName is hostileText that a file name can hold (no NUL, no slash).
const hostileName = "\x1b[31m\u202eevil\u202c\u2066\u0085\a"

// hostileDocPath is the doc path of hostileDocs' page.
const hostileDocPath = "docs/mod" + hostileName + "/page" + hostileName + ".md"

// terminalUnsafe reports the first rune of s a terminal would act on
// rather than draw: ESC and every other C0 control but newline and tab,
// DEL, C1 controls (also as stray bytes of invalid UTF-8, which some
// terminals read as C1), and bidi embeddings, overrides, isolates and
// marks. It returns its byte offset, or -1.
func terminalUnsafe(s string) (int, rune) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n' && r != '\t',
			r >= 0x7f && r <= 0x9f,
			r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069,
			r == 0x200e, r == 0x200f, r == 0x061c:
			return i, r
		}
		i += size
	}
	return -1, 0
}

// hostileDocs writes a Docusaurus site whose one page has hostile text in
// its folder and file names, front-matter title, headings, text and a
// link, beside a plain page; it returns the site folder and its docs.
func hostileDocs(t *testing.T) (site, docs string) {
	t.Helper()
	site = t.TempDir()
	docs = filepath.Join(site, "docs")
	dir := filepath.Join(site, filepath.Dir(hostileDocPath))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "---\ntitle: " + yamlEscaped("Torque title "+hostileText) + "\n---\n\n# Torque " + hostileText + "\n\n" +
		"Motors make torque in every joint " + hostileText + " of the robot arm.\n\n" +
		"## Current loops " + hostileText + "\n\n" +
		"A motor driver closes a current loop to control torque precisely " + hostileText +
		". See [the driver " + hostileText + "](https://evil.test/" + hostileName + ") and [a section](#nowhere" + hostileName + ").\n\n" +
		"## Gear ratios\n\nGearboxes trade speed for torque in every joint of the arm.\n"
	files := map[string]string{
		filepath.Join(site, hostileDocPath):         page,
		filepath.Join(docs, "plain.md"):             "# Plain page\n\nRobots walk on two legs with balance control.\n",
		filepath.Join(site, "docusaurus.config.js"): "module.exports = {url: 'https://book.example.org', baseUrl: '/book/'};\n",
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return site, docs
}

// yamlEscaped is s as a double-quoted YAML scalar with every rune
// outside printable ASCII escaped: a front matter that parses.
func yamlEscaped(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostileCollection is the Qdrant textbook with hostile text in every
// field of its first chapter's chunks: title, section, breadcrumb, doc
// path, URL, module, chapter, tags and text.
func hostileCollection() qdranttest.Collection {
	c := qdranttest.Collection{Name: "hostile", Dim: qdranttest.TextbookA().Dim, Indexed: map[string]qc.PayloadSchemaType{
		"module": qc.PayloadSchemaType_Keyword, "chapter": qc.PayloadSchemaType_Keyword,
	}}
	for i, ch := range qdranttest.Textbook() {
		if i < qdranttest.ChunksPerChapter {
			ch.Title += " " + hostileText
			ch.Section += " " + hostileText
			ch.Breadcrumb = []string{ch.Title, ch.Section}
			ch.DocPath = hostileDocPath
			ch.URL = qdranttest.BaseURL + "/docs/" + hostileName + "#" + hostileName
			ch.Module += hostileName
			ch.Chapter += " " + hostileText
			ch.Tags = append(ch.Tags, "tag"+hostileName)
			ch.Text += " Torque " + hostileText + "\x00 motors."
		}
		c.Points = append(c.Points, qdranttest.Point{ID: uint64(i + 1), Vector: qdranttest.Embed(ch.Text), Payload: qdranttest.PayloadA(ch)})
	}
	return c
}

// hostileChat is a chat model that answers with hostile text: judge
// reasons, golden questions (bidi controls only, which golden keeps) and,
// for answers, the default quote of the first source.
func hostileChat(t *testing.T) map[string]string {
	t.Helper()
	srv := openaitest.NewServer("sk-hostile")
	t.Cleanup(srv.Close)
	quoted, _ := json.Marshal("because " + hostileText)
	srv.Structured(func(r openaitest.ChatRequest) string {
		props, _ := r.Schema()["properties"].(map[string]any)
		switch {
		case props["grade"] != nil:
			return `{"grade": 2, "reason": ` + string(quoted) + `}`
		case props["answered"] != nil:
			return `{"answered": true, "reason": ` + string(quoted) + `}`
		}
		return `{"specific": "Where do motors make torque in every joint \u202eevil\u202c of the arm?", "abstract": "Why does a current loop \u2066iso\u2069 control torque precisely in a robot?"}`
	})
	return map[string]string{"OPENAI_API_KEY": "sk-hostile", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai"}
}

// hostileInvocation is one run of a command in the walk: its arguments
// (after the command's path) and, when set, a word the output must show,
// so that the hostile text is known to have reached the printing.
type hostileInvocation struct {
	args  []string
	stdin string
	shows string
}

// hostileRuns are the invocations of every command for the walk, by the
// command's path. A command of the tree missing here fails the test: a
// new command gets its hostile runs when it is added.
func hostileRuns(dir, site, goldenSet, questions string) map[string][]hostileInvocation {
	out := func(name string) string { return filepath.Join(dir, name) }
	return map[string][]hostileInvocation{
		"ragscope": {{}}, // no terminal: the help
		"ragscope query": {
			{args: []string{"torque motors joint"}, shows: "click"},
			{args: []string{"--context", "torque motors joint"}, shows: "click"},
			{args: []string{"--expect", hostileDocPath, "-k", "1", "motor driver current loop precisely"}, shows: "best chunk"},
			{args: []string{"--expect", hostileDocPath + "#nowhere" + hostileName, "torque"}, shows: "closest doc paths"},
			{args: []string{"--expect", "docs/elsewhere" + hostileName + ".md", "torque"}, shows: "closest doc paths"},
			{args: []string{"--ann-check", "torque motors"}},
			{args: []string{"--rerank", "bm25", "torque motors joint"}, shows: "click"},
			{args: []string{"--judge", "torque motors joint"}, shows: "because"},
			{args: []string{"--vs", "evil", "torque motors joint"}},
			{args: []string{"--module", "mod" + hostileName, "torque"}},
			{args: []string{"--selected-text", "-", "--source-doc", hostileDocPath, "what is this?"}, stdin: "torque " + hostileText},
		},
		"ragscope ask": {
			{args: []string{"torque motors joint"}, shows: "Answer"},
			{args: []string{"--context", "--judge", "torque motors joint"}, shows: "because"},
		},
		"ragscope eval": {
			{args: []string{goldenSet, "-k", "1", "--markdown", out("report.md"), "--junit", out("junit.xml"), "--out", out("report.json")}, shows: "MISS"},
			{args: []string{goldenSet, "--baseline", out("report.json"), "--ann-check", "--judge", "--yes"}},
			{args: []string{goldenSet, "--vs", "evil"}},
		},
		"ragscope golden": {{}},
		"ragscope golden generate": {
			{args: []string{"-n", "4", "-o", out("generated.yaml"), "--force"}},
		},
		"ragscope golden import": {
			{args: []string{questions, "-o", out("imported.yaml"), "--force"}, shows: "near"},
			{args: []string{questions, "-o", "-"}, shows: "question:"},
			{args: []string{"-", "-o", "-"}, stdin: "why " + hostileText + "?\n"},
		},
		"ragscope index": {
			{args: []string{"--site", site, filepath.Join(site, "docs"), "-o", out("book.idx")}, shows: "Modules"},
		},
		"ragscope links": {
			{args: []string{"--site", site}, shows: "click"},
		},
		"ragscope chunks": {
			{args: []string{"--max-list", "0", "--tiny", "400"}, shows: "click"},
			{args: []string{"--fail-on", "tiny>0"}},
		},
		"ragscope stats":   {{shows: "mod"}},
		"ragscope setups":  {{shows: "evil"}},
		"ragscope version": {{}},
	}
}

// commandPaths lists the command tree's commands, root included.
func commandPaths(c *cobra.Command) []string {
	out := []string{c.CommandPath()}
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
			continue
		}
		out = append(out, commandPaths(sub)...)
	}
	return out
}

// TestNoCommandPrintsControlSequences walks every command of the tree
// against a hostile collection, a local docs folder and a Qdrant
// collection, and checks that nothing a terminal would act on reaches
// standard output or standard error, nor the reports written for people.
func TestNoCommandPrintsControlSequences(t *testing.T) {
	site, docs := hostileDocs(t)
	dir := t.TempDir()
	goldenSet := filepath.Join(dir, "golden.yaml")
	set := fmt.Sprintf(`name: "hostile \e[31m\u202e"
cases:
  - id: "hit \e]52;c;eA==\a\u202e"
    question: motor driver current loop precisely
    category: "cat \e[2J\u2066"
    expect: {doc_paths: [%q]}
  - id: "miss \e[31m\u202e"
    question: motor driver current loop precisely
    expect: {doc_paths: [docs/plain.md]}
  - id: unlabelled
    question: "torque \u202e joint"
`, hostileDocPath)
	questions := filepath.Join(dir, "questions.txt")
	for p, body := range map[string]string{
		goldenSet:                           set,
		questions:                           "why " + hostileText + "?\nwhy " + hostileText + " ?\nhow do \u202emotors\u202c make torque\n",
		filepath.Join(dir, "ragscope.toml"): fmt.Sprintf("[setups.evil]\nlocal.search = \"hybrid\"\nlocal.docs = %q\n\n[setups.\"bad\\u001b[31m\\u202e\"]\nlocal.search = \"bm25\"\n", docs),
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runs := hostileRuns(dir, site, goldenSet, questions)
	var paths []string
	for _, p := range commandPaths((&App{}).NewRootCmd()) {
		paths = append(paths, p)
		if _, ok := runs[p]; !ok {
			t.Errorf("%q has no hostile runs: add it to hostileRuns", p)
		}
	}
	for p := range runs {
		if !slices.Contains(paths, p) {
			t.Errorf("hostileRuns names %q, which is not a command", p)
		}
	}
	sort.Strings(paths)

	qs, _, qenv := fakes(t)
	qs.AddCollection(hostileCollection())
	chat := hostileChat(t)
	backends := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"docs", with(chat, "XDG_CACHE_HOME", t.TempDir(), "__DIR", dir), []string{"--docs", docs}},
		{"qdrant", with(with(qenv, "QDRANT_COLLECTION", "hostile", "XDG_CACHE_HOME", t.TempDir(), "__DIR", dir), flat(chat)...), []string{"--site", site}},
	}
	for _, be := range backends {
		for _, p := range paths {
			words := strings.Fields(p)[1:]
			for i, inv := range runs[p] {
				args := append(append(slices.Clone(be.args), words...), inv.args...)
				if p == "ragscope index" || p == "ragscope golden import" || p == "ragscope setups" || p == "ragscope version" || p == "ragscope golden" || p == "ragscope" {
					if be.name != "docs" {
						continue // nothing of the collection in it
					}
					args = append(slices.Clone(words), inv.args...)
				}
				t.Run(fmt.Sprintf("%s/%s/%d", be.name, strings.Join(append([]string{"root"}, words...), "_"), i), func(t *testing.T) {
					code, out, errs := run(t, be.env, inv.stdin, args...)
					for stream, s := range map[string]string{"stdout": out, "stderr": errs} {
						if at, r := terminalUnsafe(s); at >= 0 {
							t.Errorf("%s (exit %d) has %U at byte %d:\n%q", stream, code, r, at, s)
						}
					}
					if inv.shows != "" && !strings.Contains(out+errs, inv.shows) {
						t.Errorf("exit %d: the output lacks %q: the hostile text did not reach it\n%s\n%s", code, inv.shows, out, errs)
					}
				})
			}
		}
	}
	// Files written for people to read or paste: the reports and sets.
	for _, name := range []string{"report.md", "junit.xml", "generated.yaml", "imported.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s was not written: %v", name, err)
			continue
		}
		if at, r := terminalUnsafe(string(data)); at >= 0 {
			t.Errorf("%s has %U at byte %d:\n%q", name, r, at, data)
		}
	}
}

// flat is env as key, value pairs for with.
func flat(env map[string]string) []string {
	var kv []string
	for k, v := range env {
		kv = append(kv, k, v)
	}
	return kv
}

// TestJSONPassesTheSanitiserUnchanged checks that the sanitiser every
// command's output goes through leaves a --json document alone: the
// collection's hostile text decodes as it was written, DEL included.
func TestJSONPassesTheSanitiserUnchanged(t *testing.T) {
	_, docs := hostileDocs(t)
	code, out, errs := run(t, nil, "", "--docs", docs, "query", "--json", "torque motors joint")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if at, r := terminalUnsafe(out); at >= 0 {
		t.Fatalf("raw %U at byte %d:\n%s", r, at, out)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	found := false
	for _, r := range doc.Results {
		found = found || (r.DocPath == hostileDocPath && strings.Contains(r.Text, "\x1b]52;c;ZXZpbA==\a") && strings.Contains(r.Text, "\x7f\u202eevil\u202c\u2066iso\u2069"))
	}
	if !found {
		t.Errorf("no result holds the hostile text and doc path as written:\n%s", out)
	}
}
