package docusaurus

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. This
// package is linked into every ragscope process, `--help` included, and
// compiling its two dozen expressions at initialisation cost every one of
// them about a millisecond; most never scan a heading.
type lazyRegexp struct {
	re func() *regexp.Regexp
}

// lazyRE returns expr compiled on first use; an invalid expr panics then,
// as regexp.MustCompile would at initialisation.
func lazyRE(expr string) *lazyRegexp {
	return &lazyRegexp{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.re().FindAllStringIndex(s, n)
}

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.re().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.re().FindStringSubmatchIndex(s)
}

// MatchString is regexp.Regexp.MatchString.
func (l *lazyRegexp) MatchString(s string) bool { return l.re().MatchString(s) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.re().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (l *lazyRegexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.re().ReplaceAllStringFunc(src, repl)
}
