package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the example outputs of the README and docs/*.md from the program (go test ./cli -run TestReadmeExampleOutputs -update-readme)")

// readmeExample is a code block of the README or a docs page that shows a command ("$ ragscope
// …", continued with "\" lines) and its output: all of it, or, after a
// line "…", an excerpt that starts at a heading line of the output and
// runs over as many paragraphs (to a blank line) as the block shows.
type readmeExample struct {
	start, end int // the block's lines, [start, end), fences excluded
	args       []string
	excerpt    bool // output after a "…" line
	output     []string
}

// readmeExamples finds a documentation page's example blocks that run on the demo
// with no file, key or setup of the reader's.
func readmeExamples(lines []string) []readmeExample {
	var out []readmeExample
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```" || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "$ ragscope ") {
			continue
		}
		j := i + 1
		cmd := strings.TrimPrefix(lines[j], "$ ragscope ")
		for strings.HasSuffix(cmd, "\\") && j+1 < len(lines) {
			j++
			cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[j])
		}
		end := j + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		ex := readmeExample{start: j + 1, end: end, args: splitArgs(cmd)}
		body := lines[j+1 : end]
		if len(body) > 0 && body[0] == "…" {
			ex.excerpt, body = true, body[1:]
		}
		ex.output = body
		i = end
		several := false
		for _, l := range body {
			several = several || strings.HasPrefix(l, "$ ")
		}
		if several || strings.ContainsAny(cmd, "|>") || strings.Contains(cmd, ".yaml") ||
			strings.Contains(cmd, ".idx") || strings.HasPrefix(cmd, "index ") || strings.HasPrefix(cmd, "ask ") {
			continue // several commands, a pipe, or the reader's files or setups
		}
		out = append(out, ex)
	}
	return out
}

// shown is what the README should show of out for ex: the whole output,
// or the excerpt from ex's first line to the next blank line.
func (ex readmeExample) shown(t *testing.T, out string) []string {
	t.Helper()
	got := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !ex.excerpt {
		return got
	}
	if len(ex.output) == 0 {
		t.Fatalf("$ ragscope %s: an excerpt with no first line", strings.Join(ex.args, " "))
	}
	// An excerpt of several paragraphs runs to the blank line that ends
	// as many paragraphs as the README shows.
	paragraphs := 1
	for _, l := range ex.output {
		if l == "" {
			paragraphs++
		}
	}
	for i, l := range got {
		if l == ex.output[0] {
			j, left := i, paragraphs
			for ; j < len(got); j++ {
				if got[j] == "" {
					if left--; left == 0 {
						break
					}
				}
			}
			return got[i:j]
		}
	}
	t.Errorf("$ ragscope %s: the output has no line %q:\n%s", strings.Join(ex.args, " "), ex.output[0], out)
	return nil
}

// userDocs returns the user documentation, the README and the pages
// under docs/, by path.
func userDocs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, pages...)
}

// The documentation's example outputs are the program's: each block of the
// README or a docs page that shows a command and what it prints on the
// demo is run, and what it shows must be what the command prints today.
// -update-readme rewrites them.
func TestReadmeExampleOutputs(t *testing.T) {
	setups, err := os.ReadFile("../docs/comparing.md")
	if err != nil {
		t.Fatal(err)
	}
	// The examples run where ragscope.toml holds the setups of the
	// comparing page that need no file of the reader's (hybrid, lexical).
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(readmeDemoSetups(t, string(setups))), 0o600); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, page := range userDocs(t) {
		total += checkPageExamples(t, page, dir)
	}
	if total < 2 {
		t.Fatalf("only %d examples with their output in the README and docs/", total)
	}
}

// checkPageExamples runs the example blocks of one page in dir, reports
// each whose output differs (or, with -update-readme, rewrites it) and
// returns how many it ran.
func checkPageExamples(t *testing.T, page, dir string) int {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	examples := readmeExamples(lines)
	changed := false
	for k := len(examples) - 1; k >= 0; k-- { // from the end: rewrites keep earlier line numbers
		ex := examples[k]
		code, out, errs := run(t, map[string]string{"__DIR": dir}, "", ex.args...)
		if code != ExitOK {
			t.Errorf("%s line %d: $ ragscope %s: exit %d: %s", page, ex.start, strings.Join(ex.args, " "), code, errs)
			continue
		}
		want := ex.shown(t, out)
		if want == nil || strings.Join(want, "\n") == strings.Join(ex.output, "\n") {
			continue
		}
		if !*updateReadme {
			t.Errorf("%s line %d: $ ragscope %s shows\n%s\nbut prints\n%s\n(go test ./cli -run TestReadmeExampleOutputs -update-readme rewrites it)",
				page, ex.start+1, strings.Join(ex.args, " "), strings.Join(ex.output, "\n"), strings.Join(want, "\n"))
			continue
		}
		from := ex.start
		if ex.excerpt {
			from++
		}
		lines = append(lines[:from], append(want, lines[ex.end:]...)...)
		changed = true
	}
	if changed {
		if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return len(examples)
}

// readmeDemoSetups is the ragscope.toml example of the comparing page (the
// one after "## Which setup is better?") without its top level and the
// setups that name the reader's files or collection.
func readmeDemoSetups(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "## Which setup is better?")
	if !ok {
		t.Fatal("docs/comparing.md has no setups section")
	}
	_, rest, ok = strings.Cut(rest, "```toml\n")
	if !ok {
		t.Fatal("docs/comparing.md's setups section has no ragscope.toml example")
	}
	block, _, _ := strings.Cut(rest, "```")
	var out strings.Builder
	for _, table := range strings.Split("\n"+block, "\n[")[1:] {
		if strings.HasPrefix(table, "setups.") && !strings.Contains(table, ".idx") && !strings.Contains(table, "qdrant") {
			out.WriteString("[" + table + "\n")
		}
	}
	return out.String()
}
