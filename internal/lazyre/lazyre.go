// Package lazyre holds regular expressions compiled on first use.
//
// Go runs the initialisation of every package linked into a binary, so a
// package-level regexp.MustCompile is paid by every ragscope process,
// `ragscope --help` included, whether or not that process ever matches the
// expression. A package-level lazyre.New costs nothing until first used.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use; it is safe
// for concurrent use, as regexp.Regexp is.
type Regexp struct {
	re func() *regexp.Regexp
}

// New returns expr compiled on first use; an invalid expr panics then,
// as regexp.MustCompile would at initialisation.
func New(expr string) *Regexp {
	return &Regexp{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return l.re().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (l *Regexp) FindStringIndex(s string) []int { return l.re().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *Regexp) FindStringSubmatchIndex(s string) []int {
	return l.re().FindStringSubmatchIndex(s)
}

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.re().MatchString(s) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.re().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (l *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.re().ReplaceAllStringFunc(src, repl)
}
