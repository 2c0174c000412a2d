package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README tells a new user, before the explorer section, that the first
// `go run .` compiles for a minute or two with no output (issue #18): the
// silence is otherwise taken for a hang.
func TestReadmeSaysTheFirstRunCompiles(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	before, _, ok := strings.Cut(text, "## The explorer")
	if !ok {
		t.Fatal("the README has no explorer section")
	}
	flat := strings.Join(strings.Fields(before), " ")
	if !regexp.MustCompile("first `go run \\.` [^.]*compiles[^.]*(minute|minutes)").MatchString(flat) {
		t.Fatal("the README does not say that the first `go run .` compiles for a minute or two")
	}
}
