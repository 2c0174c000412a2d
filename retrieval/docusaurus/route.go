package docusaurus

import (
	"net/url"
	"path"
	"strings"
)

// DocSlug derives a doc's slug (its path under the docs route, with a
// leading slash) and its id as Docusaurus does. rel is the doc's file
// path inside its docs folder ("m1/01-intro.md"); fmSlug and fmID are its
// front matter slug and id, "" when absent.
//   - An absolute front matter slug ("/x") is used as is.
//   - Without a slug, an index doc (index, README or a file named like its
//     folder, compared before number prefixes are stripped,
//     case-insensitively) is served at its folder, with a trailing slash.
//   - Otherwise the slug, or the front matter id, or the file name without
//     its number prefix, is resolved against the folder, whose segments
//     lose their number prefixes too ("02-sim/03-gazebo.md" ->
//     "/sim/gazebo"; slug "../x" climbs out of the folder).
//
// The chunker's citations (through retrieval.DocRoute) and the link
// checker's site model both route docs through DocSlug.
func DocSlug(rel, fmSlug, fmID string) (slug, id string) {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(rel, "\\", "/")), "/")
	dir, file := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	name := file
	for _, ext := range []string{".mdx", ".md"} {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			name = name[:len(name)-len(ext)]
			break
		}
	}
	fmSlug, fmID = strings.TrimSpace(fmSlug), strings.TrimSpace(fmID)
	baseID := StripNumberPrefix(name)
	if fmID != "" {
		baseID = fmID
	}
	id = baseID
	if dir != "" {
		id = dir + "/" + baseID
	}
	dirSlug := "/"
	if dir != "" {
		dirSlug = "/" + StripPathNumberPrefixes(dir) + "/"
	}
	switch {
	case strings.HasPrefix(fmSlug, "/"):
		return fmSlug, id
	case fmSlug == "" && isIndexName(name, dir):
		return dirSlug, id
	}
	base := baseID
	if fmSlug != "" {
		base = fmSlug
	}
	ref, err := url.Parse(base)
	if err != nil {
		return path.Join(dirSlug, base), id
	}
	return (&url.URL{Path: dirSlug}).ResolveReference(&url.URL{Path: ref.Path}).Path, id
}

// isIndexName reports whether a doc named name (without extension) in dir
// is its folder's index doc.
func isIndexName(name, dir string) bool {
	l := strings.ToLower(name)
	return l == "index" || l == "readme" || (dir != "" && l == strings.ToLower(path.Base(dir)))
}

// ApplyTrailingSlash applies a site's trailingSlash setting to a route
// path, as Docusaurus does: "true" adds a final "/", "false" removes it,
// "" (undefined) leaves the path as the route has it. The site root ("/")
// and baseURL itself are never changed.
func ApplyTrailingSlash(p, baseURL, setting string) string {
	if p == "" || p == "/" || (baseURL != "" && p == baseURL) {
		return p
	}
	switch setting {
	case "true":
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
	case "false":
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// StripNumberPrefix removes a Docusaurus number prefix ("01-intro" ->
// "intro", "3 - Setup" -> "Setup"), leaving date-like ("2021-01-31-x") and
// version-like ("1.1-intro") names alone, as Docusaurus does.
func StripNumberPrefix(name string) string {
	d := leadingDigits(name)
	if d == 0 {
		return name
	}
	// Version-like "1.1-x" and date-like "2021-01-31" / "31.01.2021" are kept:
	// digits, a separator, digits.
	if d < len(name) && isPrefixSep(name[d]) && leadingDigits(name[d+1:]) > 0 {
		return name
	}
	i := d
	for i < len(name) && name[i] == ' ' {
		i++
	}
	j := i
	for j < len(name) && isPrefixSep(name[j]) {
		j++
	}
	if j == i {
		return name
	}
	for j < len(name) && name[j] == ' ' {
		j++
	}
	// A name must follow the prefix, and not start with a separator.
	if j == len(name) || isPrefixSep(name[j]) {
		return name
	}
	return name[j:]
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func isPrefixSep(c byte) bool { return c == '-' || c == '_' || c == '.' }

// StripPathNumberPrefixes applies StripNumberPrefix to every path segment.
func StripPathNumberPrefixes(p string) string {
	if p == "" {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = StripNumberPrefix(s)
	}
	return strings.Join(segs, "/")
}
