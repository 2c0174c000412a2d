package docusaurus

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/rangetable"

	"ragscope/internal/textnorm"
)

// SlugStyle names a heading-anchor rule.
type SlugStyle string

const (
	// SlugGitHub is github-slugger's rule, which Docusaurus uses for heading ids.
	SlugGitHub SlugStyle = "github"
	// SlugSimple is the rule of simple slugifiers: lowercase, runs of other characters
	// become one hyphen, no leading or trailing hyphen.
	SlugSimple SlugStyle = "simple"
)

// ParseSlugStyle accepts "github" (or "") and "simple".
func ParseSlugStyle(s string) (SlugStyle, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "github":
		return SlugGitHub, nil
	case "simple":
		return SlugSimple, nil
	}
	return "", fmt.Errorf("unknown slug style %q: use \"github\" (Docusaurus heading ids) or \"simple\"", s)
}

// Slug returns the anchor of heading text under the style. It does not add
// the per-page duplicate suffix; see Slugger for that.
func (s SlugStyle) Slug(text string) string {
	if s == SlugSimple {
		return SimpleSlug(text)
	}
	return GitHubSlug(text)
}

// sluggerUnicode is the Unicode version of github-slugger 2.0.0's tables
// (it is generated from @unicode/unicode-13.0.0): code points assigned
// later are outside its keep-list and deleted, whatever Go's tables say.
const sluggerUnicode = "13.0.0"

// sluggerAssigned is read-only after package initialisation.
var sluggerAssigned = rangetable.Assigned(sluggerUnicode)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// GitHubSlug implements github-slugger's slug for one heading (without the
// duplicate counter): lowercase as JavaScript's toLowerCase does (full case
// mapping: "İ" is "i̇", a word-final "Σ" is "ς"); delete punctuation,
// symbols, other numbers, controls, format and private-use characters,
// separators other than the ASCII space and code points unassigned in
// Unicode 13, but keep '-', '_' and anything alphabetic; then every space
// becomes '-' with no collapsing or trimming.
func GitHubSlug(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	lower := strings.ToLower(text)
	if !isASCII(text) {
		// A Caser is stateful: one per call.
		lower = cases.Lower(language.Und).String(text)
	}
	for _, r := range lower {
		if r >= 0x80 && !unicode.Is(sluggerAssigned, r) {
			continue
		}
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsLetter(r) || unicode.Is(unicode.Other_Alphabetic, r):
			b.WriteRune(r)
		case slugDeleted(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// slugDeleted reports whether github-slugger removes r.
func slugDeleted(r rune) bool {
	if r == unicode.ReplacementChar {
		return true
	}
	switch {
	case unicode.Is(unicode.No, r),
		unicode.Is(unicode.Ps, r), unicode.Is(unicode.Pe, r), unicode.Is(unicode.Pi, r),
		unicode.Is(unicode.Pf, r), unicode.Is(unicode.Po, r), unicode.Is(unicode.Pd, r),
		unicode.Is(unicode.S, r),
		unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r),
		unicode.Is(unicode.Z, r):
		return true
	}
	// Unassigned code points (Cn) are in no category.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
}

// SimpleSlug is the simple slug rule: lowercase, every run of characters that
// are not letters or digits becomes one hyphen, hyphens trimmed at both ends.
func SimpleSlug(text string) string {
	return textnorm.Join(text, '-', unicode.IsDigit)
}

// Slugger gives heading ids for one page, adding "-1", "-2", … to repeats as
// github-slugger does. The zero value is not usable; use NewSlugger.
type Slugger struct {
	style SlugStyle
	seen  map[string]int
}

// NewSlugger returns a slugger for one page.
func NewSlugger(style SlugStyle) *Slugger {
	return &Slugger{style: style, seen: map[string]int{}}
}

// Slug returns the unique id of the next heading with this text.
func (s *Slugger) Slug(text string) string {
	return s.Unique(s.style.Slug(text))
}

// Unique reserves id (an explicit or computed slug) on the page and returns
// it, or the first free "id-N" when it is taken.
func (s *Slugger) Unique(id string) string {
	slug := id
	if n, ok := s.seen[id]; ok {
		for {
			n++
			slug = fmt.Sprintf("%s-%d", id, n)
			if _, taken := s.seen[slug]; !taken {
				break
			}
		}
		s.seen[id] = n
	}
	s.seen[slug] = 0
	return slug
}

var classicHeadingID = lazyRE(`\s*\{#([^{}]+)\}\s*$`)

// SplitHeadingID separates an explicit heading id from heading text:
// "Title {#custom-id}" gives ("Title", "custom-id"); other text is returned
// trimmed with an empty id. The MDX comment form "Title {/* #custom-id */}"
// is not an explicit id in Docusaurus 3.5 (checked by a real build): the
// comment's text is slugged with the title ("title--custom-id-").
func SplitHeadingID(heading string) (text, id string) {
	if m := classicHeadingID.FindStringSubmatchIndex(heading); m != nil {
		return strings.TrimSpace(heading[:m[0]]), strings.TrimSpace(heading[m[2]:m[3]])
	}
	return strings.TrimSpace(heading), ""
}

var (
	mdLink       = lazyRE(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag      = lazyRE(`</?[A-Za-z][^>]*>`)
	starEmphasis = lazyRE(`\*{1,3}([^*]+)\*{1,3}`)
	underEmph    = lazyRE(`(^|[^\pL\pN])_{1,3}([^_]+)_{1,3}([^\pL\pN]|$)`)
)

// StripInlineMarkup returns the text content of inline markdown: links
// reduced to their text, inline HTML/JSX removed and emphasis markers and
// inline-code backticks dropped. HeadingText adds what the markdown parser
// does besides (escapes, character references, MDX comments).
func StripInlineMarkup(md string) string {
	if !strings.ContainsAny(md, "[<*_`") {
		return strings.TrimSpace(md)
	}
	s := mdLink.ReplaceAllString(md, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = starEmphasis.ReplaceAllString(s, "$1")
	s = underEmph.ReplaceAllString(s, "$1$2$3")
	s = strings.ReplaceAll(s, "`", "")
	return strings.TrimSpace(s)
}
