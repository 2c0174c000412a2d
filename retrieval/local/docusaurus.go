package local

import (
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// docusaurusConfigs are the config file names Docusaurus looks for.
var docusaurusConfigs = []string{
	"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs",
	"docusaurus.config.cjs", "docusaurus.config.mts", "docusaurus.config.cts",
}

var (
	// The value is the first string literal on the key's line, so
	// `url: process.env.URL || 'https://x.org'` still gives the fallback.
	cfgURL      = regexp.MustCompile("(?m)(?:^|[\\s,{])url\\s*:[^'\"`\\n]*['\"`]([^'\"`\\n]+)['\"`]")
	cfgBaseURL  = regexp.MustCompile("(?m)(?:^|[\\s,{])baseUrl\\s*:[^'\"`\\n]*['\"`]([^'\"`\\n]*)['\"`]")
	cfgRoute    = regexp.MustCompile("(?m)(?:^|[\\s,{])routeBasePath\\s*:[^'\"`\\n]*['\"`]([^'\"`\\n]*)['\"`]")
	cfgDocsOpen = regexp.MustCompile(`(?m)(?:^|[\s,{(])docs\s*:\s*\{`)
	cfgBlogOpen = regexp.MustCompile(`(?m)(?:^|[\s,{(])(?:blog|pages)\s*:\s*[{f]`)
	lineComment = regexp.MustCompile(`(?m)^\s*//.*$`)
)

// siteURLs are the URLs read from a Docusaurus config.
type siteURLs struct {
	// DocsBase is url + baseUrl + the docs routeBasePath, ending in "/".
	DocsBase string
	// Site is the site origin.
	Site string
	// File is the config file read.
	File string
}

// findDocusaurusConfig looks for a Docusaurus config in dir of fsys and
// reads the docs base URL from it with tolerant regular expressions (the
// config is JavaScript, which ragscope does not run). ok is false when no
// config is found or it has no absolute url.
func findDocusaurusConfig(fsys fs.FS, dir string) (siteURLs, bool) {
	for _, name := range docusaurusConfigs {
		p := path.Join(dir, name)
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		u, ok := parseDocusaurusConfig(string(b))
		if ok {
			u.File = p
		}
		return u, ok
	}
	return siteURLs{}, false
}

// parseDocusaurusConfig extracts url, baseUrl and the docs plugin's
// routeBasePath (default "docs") from config source.
func parseDocusaurusConfig(src string) (siteURLs, bool) {
	src = lineComment.ReplaceAllString(src, "")
	m := cfgURL.FindStringSubmatch(src)
	if m == nil {
		return siteURLs{}, false
	}
	site, err := url.Parse(strings.TrimSpace(m[1]))
	if err != nil || site.Scheme == "" || site.Host == "" {
		return siteURLs{}, false
	}
	base := "/"
	if m := cfgBaseURL.FindStringSubmatch(src); m != nil {
		base = strings.TrimSpace(m[1])
	}
	route := "docs"
	if loc := cfgDocsOpen.FindStringIndex(src); loc != nil {
		rest := src[loc[1]:]
		if end := cfgBlogOpen.FindStringIndex(rest); end != nil {
			rest = rest[:end[0]]
		}
		if m := cfgRoute.FindStringSubmatch(rest); m != nil {
			route = strings.TrimSpace(m[1])
		}
	}
	origin := site.Scheme + "://" + site.Host
	// A url with a path ("https://x.org/sub") keeps it before baseUrl only
	// when baseUrl does not already repeat it.
	parts := []string{}
	for _, p := range []string{site.Path, base, route} {
		if p = strings.Trim(p, "/"); p != "" {
			parts = append(parts, p)
		}
	}
	if sp := strings.Trim(site.Path, "/"); sp != "" && strings.HasPrefix(strings.Trim(base, "/")+"/", sp+"/") {
		parts = parts[1:]
	}
	docs := origin + "/"
	if len(parts) > 0 {
		docs += strings.Join(parts, "/") + "/"
	}
	return siteURLs{DocsBase: docs, Site: origin}, true
}
