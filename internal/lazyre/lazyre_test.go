package lazyre

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A lazy expression answers as the compiled one does, and compiles only
// when first used (an invalid one panics then, not at initialisation).
func TestLazyRegexp(t *testing.T) {
	const expr = `(\w+)-(\d+)`
	l, re := New(expr), regexp.MustCompile(expr)
	s := "a-1 bb-22 c"
	if got, want := l.FindStringSubmatch(s), re.FindStringSubmatch(s); !slices.Equal(got, want) {
		t.Errorf("FindStringSubmatch = %q, want %q", got, want)
	}
	if got, want := l.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
		t.Errorf("FindStringSubmatchIndex = %v, want %v", got, want)
	}
	if got, want := l.FindStringIndex(s), re.FindStringIndex(s); !slices.Equal(got, want) {
		t.Errorf("FindStringIndex = %v, want %v", got, want)
	}
	if got, want := len(l.FindAllStringIndex(s, -1)), 2; got != want {
		t.Errorf("FindAllStringIndex found %d, want %d", got, want)
	}
	if got, want := l.FindAllStringSubmatch(s, -1), re.FindAllStringSubmatch(s, -1); len(got) != len(want) || !slices.Equal(got[1], want[1]) {
		t.Errorf("FindAllStringSubmatch = %q, want %q", got, want)
	}
	if !l.MatchString(s) || l.MatchString("none") {
		t.Error("MatchString")
	}
	if got := l.ReplaceAllString(s, "$2"); got != "1 22 c" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	if got := l.ReplaceAllStringFunc(s, strings.ToUpper); got != "A-1 BB-22 c" {
		t.Errorf("ReplaceAllStringFunc = %q", got)
	}

	bad := New(`(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	bad.MatchString("x")
}
