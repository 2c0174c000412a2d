package cli

import (
	"os"
	"strings"
	"testing"
)

// Every example of the README's CLI tour that needs nothing but the demo
// runs as shown and succeeds. Examples that read a file or a pipe of the
// reader's, or need a key (ask), are listed and skipped by name.
func TestReadmeTourRunsAsShown(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "## A quick tour of the CLI")
	if i < 0 {
		t.Fatal("the README has no CLI tour")
	}
	block := text[i:]
	block = block[strings.Index(block, "```sh\n")+6:]
	block = block[:strings.Index(block, "```")]
	ran := 0
	for _, line := range strings.Split(block, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmd = strings.TrimSpace(cmd)
		if !strings.HasPrefix(cmd, "ragscope ") {
			continue
		}
		switch {
		case strings.Contains(cmd, "|"), strings.Contains(cmd, "golden.yaml"), strings.Contains(cmd, "book.idx"),
			strings.Contains(cmd, "website/docs"), strings.HasPrefix(cmd, "ragscope ask"):
			continue // needs the reader's files, a pipe or a chat key
		}
		args := splitArgs(strings.TrimPrefix(cmd, "ragscope "))
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s\n%s", cmd, code, out, errs)
		}
		ran++
	}
	if ran < 5 {
		t.Fatalf("only %d tour examples ran", ran)
	}
}

// splitArgs splits a shell command line on spaces outside double quotes,
// which is all the README's examples use.
func splitArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune // the open quote, '"' or '\'', or 0
	started := false
	for _, r := range s {
		switch {
		case (r == '"' || r == '\'') && (quote == 0 || quote == r):
			if quote == 0 {
				quote = r
			} else {
				quote = 0
			}
			started = true
		case r == ' ' && quote == 0:
			if started {
				args = append(args, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if started {
		args = append(args, cur.String())
	}
	return args
}
