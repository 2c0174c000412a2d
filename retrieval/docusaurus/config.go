package docusaurus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"ragscope/internal/readlimit"
)

// SiteConfig is what ragscope reads from docusaurus.config.{js,ts,mjs,cjs}.
//
// The config is JavaScript, which ragscope does not run: values are read
// with tolerant regular expressions, so only literal values are understood
// (see ParseConfig for the limits).
type SiteConfig struct {
	// URL is the site origin, e.g. "https://owner.github.io" ("" if unknown).
	URL string `json:"url"`
	// BaseURL is the path the site is served under, always with leading and
	// trailing slash ("/" by default).
	BaseURL string `json:"base_url"`
	// TrailingSlash is nil when undefined (Docusaurus's default), else the
	// configured value.
	TrailingSlash *bool `json:"trailing_slash"`
	// RouteBasePath is the docs plugin's route base path without slashes
	// ("docs" by default; "" when the docs are served at the site root).
	RouteBasePath string `json:"route_base_path"`
	// DocsPath is the docs folder relative to the site folder ("docs").
	DocsPath string `json:"docs_path"`
	// Docs are every docs plugin instance, the one RouteBasePath and
	// DocsPath describe first (a second instance is a
	// '@docusaurus/plugin-content-docs' plugin with its own id).
	Docs []DocsInstance `json:"docs,omitempty"`
	// MarkdownFormat is markdown.format: "mdx" (the default: every file is
	// MDX) or "detect" (.md files are CommonMark).
	MarkdownFormat string `json:"markdown_format"`
	// Notes say what could not be read and which default was used instead.
	Notes []string `json:"notes,omitempty"`
}

// DocsInstance is one docs plugin instance.
type DocsInstance struct {
	// ID is the plugin id ("default" for the classic preset's docs).
	ID string `json:"id"`
	// Path is the docs folder relative to the site folder.
	Path string `json:"path"`
	// RouteBasePath is the route under baseUrl, without slashes.
	RouteBasePath string `json:"route_base_path"`
}

// VersionsFile is the file listing the released versions of the instance
// (versions.json for the default instance, <id>_versions.json otherwise).
func (d DocsInstance) VersionsFile() string {
	if d.ID == "default" {
		return "versions.json"
	}
	return d.ID + "_versions.json"
}

// VersionDir is the folder of a released version's docs.
func (d DocsInstance) VersionDir(version string) string {
	if d.ID == "default" {
		return "versioned_docs/version-" + version
	}
	return d.ID + "_versioned_docs/version-" + version
}

// Versions reads the instance's released versions (newest first) from its
// versions file in the site folder siteDir of fsys. A site without the file
// has none (nil, nil); a file that is not a JSON list of names is an error.
func (d DocsInstance) Versions(fsys fs.FS, siteDir string) ([]string, error) {
	name := path.Join(siteDir, d.VersionsFile())
	b, err := readlimit.ReadFS(fsys, name, readlimit.SiteFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var versions []string
	if err := json.Unmarshal(b, &versions); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return versions, nil
}

// CurrentRoutePrefix is the route prefix (under baseUrl, no slashes
// around) of the instance's current docs folder: RouteBasePath, or
// RouteBasePath/next once versions are released, as Docusaurus serves the
// newest released version at RouteBasePath.
func (d DocsInstance) CurrentRoutePrefix(versions []string) string {
	if len(versions) == 0 {
		return d.RouteBasePath
	}
	return strings.Trim(d.RouteBasePath+"/next", "/")
}

// DefaultSiteConfig is Docusaurus's defaults.
func DefaultSiteConfig() SiteConfig {
	return SiteConfig{BaseURL: "/", RouteBasePath: "docs", DocsPath: "docs", MarkdownFormat: "mdx",
		Docs: []DocsInstance{{ID: "default", Path: "docs", RouteBasePath: "docs"}}}
}

// DocsBase is the URL of the docs route: url + baseUrl + routeBasePath + "/".
// It is what retrieval.URLBuilder.DocsBase should be for this site. A url
// with a path ("https://x.org/sub") keeps it unless baseUrl already starts
// with it.
func (c SiteConfig) DocsBase() string {
	p := c.BaseURL
	if c.RouteBasePath != "" {
		p += c.RouteBasePath + "/"
	}
	origin := strings.TrimSuffix(c.URL, "/")
	if i := strings.Index(origin, "://"); i >= 0 {
		if j := strings.IndexByte(origin[i+3:], '/'); j >= 0 {
			sub := origin[i+3+j:]
			origin = origin[:i+3+j]
			if !strings.HasPrefix(p, sub+"/") {
				p = sub + p
			}
		}
	}
	return origin + p
}

// CurrentDocsBase is DocsBase for the pages of the current docs folder
// (DocsPath) of the site whose folder is siteDir in fsys: with released
// versions its pages are served under "next/" (see
// DocsInstance.CurrentRoutePrefix). A versions file that does not parse
// is ignored here; the link checker reports it.
func (c SiteConfig) CurrentDocsBase(fsys fs.FS, siteDir string) string {
	if len(c.Docs) == 0 {
		return c.DocsBase()
	}
	versions, err := c.Docs[0].Versions(fsys, siteDir)
	if err != nil || len(versions) == 0 {
		return c.DocsBase()
	}
	cur := c
	cur.RouteBasePath = c.Docs[0].CurrentRoutePrefix(versions)
	return cur.DocsBase()
}

// Origin is the scheme and host of url ("https://x.org"), or "".
func (c SiteConfig) Origin() string {
	u := strings.TrimSuffix(c.URL, "/")
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// TrailingSlashSetting is trailingSlash as a retrieval.URLBuilder takes it:
// "true", "false", or "" when undefined.
func (c SiteConfig) TrailingSlashSetting() string {
	switch {
	case c.TrailingSlash == nil:
		return ""
	case *c.TrailingSlash:
		return "true"
	}
	return "false"
}

// configExts are the endings of the config file names Docusaurus looks for in a site
// folder, in its order.
var configExts = [...]string{"js", "ts", "mjs", "cjs", "mts", "cts"}

// HasConfig reports whether the folder dir (on disk) holds a Docusaurus
// config file under any of the names Docusaurus reads
// (docusaurus.config.js, .ts, .mjs, .cjs, .mts, .cts): a site folder.
func HasConfig(dir string) bool {
	for _, ext := range configExts {
		if st, err := os.Stat(filepath.Join(dir, "docusaurus.config."+ext)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// FindConfig reads the first Docusaurus config in dir of fsys, trying the
// names Docusaurus looks for in its order. ok is false when there is none.
func FindConfig(fsys fs.FS, dir string) (cfg SiteConfig, file string, ok bool) {
	for _, ext := range configExts {
		name := "docusaurus.config." + ext
		p := path.Join(dir, name)
		b, err := readlimit.ReadFS(fsys, p, readlimit.SiteFile)
		if err != nil {
			continue
		}
		return ParseConfig(string(b)), p, true
	}
	return DefaultSiteConfig(), "", false
}

var (
	cfgURL          = lazyRE(`(?m)(?:^|[{,\s])url\s*:\s*(['"` + "`" + `])([^'"` + "`" + `]*)['"` + "`" + `]`)
	cfgURLFallback  = lazyRE(`(?m)(?:^|[{,\s])url\s*:[^,\n]*?['"` + "`" + `](https?://[^'"` + "`" + `$]+)['"` + "`" + `]`)
	cfgBaseURL      = lazyRE(`\bbaseUrl\s*:\s*(['"` + "`" + `])([^'"` + "`" + `]*)['"` + "`" + `]`)
	cfgBaseFallback = lazyRE(`\bbaseUrl\s*:[^,\n]*?['"` + "`" + `](/[^'"` + "`" + `$]*)['"` + "`" + `]`)
	cfgTrailing     = lazyRE(`\btrailingSlash\s*:\s*(true|false|undefined|null)\b`)
	cfgRouteBase    = lazyRE(`\brouteBasePath\s*:\s*(['"` + "`" + `])([^'"` + "`" + `]*)['"` + "`" + `]`)
	cfgPath         = lazyRE(`(?:^|[{,\s])path\s*:\s*(['"` + "`" + `])([^'"` + "`" + `]*)['"` + "`" + `]`)
	cfgDocsBlock    = lazyRE(`(?:^|[{,\s])docs\s*:\s*\{`)
	cfgDocsPlugin   = lazyRE(`['"]@docusaurus/plugin-content-docs['"]\s*,\s*\{`)
	cfgDocsFalse    = lazyRE(`(?:^|[{,\s])docs\s*:\s*false\b`)
	cfgPluginID     = lazyRE(`(?:^|[{,\s])id\s*:\s*(['"` + "`" + `])([^'"` + "`" + `]*)['"` + "`" + `]`)
	cfgDetect       = lazyRE(`\bformat\s*:\s*['"]detect['"]`)
)

// ParseConfig reads a Docusaurus config's url, baseUrl, trailingSlash and
// the docs plugin's routeBasePath and path, starting from the defaults.
//
// Limits: values must be literals (strings, or true/false for
// trailingSlash); a value computed from a variable or a template with ${…}
// is not evaluated (for url, a literal "https://…" anywhere in the
// expression, e.g. `process.env.URL ?? 'https://x.org'`, is taken). The docs
// options are read from the first `docs: {…}` object (the classic preset)
// and every '@docusaurus/plugin-content-docs' plugin (Docs; the first is
// also RouteBasePath and DocsPath); i18n is not modelled. Comments are
// removed first; a JavaScript regex literal containing quotes or "//" can
// confuse that.
func ParseConfig(src string) SiteConfig {
	c := DefaultSiteConfig()
	src = stripJSComments(src)
	if m := cfgURL.FindStringSubmatch(src); m != nil && !strings.Contains(m[2], "${") {
		c.URL = strings.TrimSuffix(m[2], "/")
	} else if m := cfgURLFallback.FindStringSubmatch(src); m != nil {
		c.URL = strings.TrimSuffix(m[1], "/")
		c.Notes = append(c.Notes, "url is an expression; used its literal "+c.URL)
	} else {
		c.Notes = append(c.Notes, "url not found in the config; citation hosts are not compared")
	}
	if m := cfgBaseURL.FindStringSubmatch(src); m != nil && !strings.Contains(m[2], "${") {
		c.BaseURL = normalizeBaseURL(m[2])
	} else if m := cfgBaseFallback.FindStringSubmatch(src); m != nil {
		c.BaseURL = normalizeBaseURL(m[1])
		c.Notes = append(c.Notes, "baseUrl is an expression; used its literal "+c.BaseURL)
	} else {
		c.Notes = append(c.Notes, `baseUrl not found in the config; assumed "/"`)
	}
	if m := cfgTrailing.FindStringSubmatch(src); m != nil {
		switch m[1] {
		case "true":
			t := true
			c.TrailingSlash = &t
		case "false":
			f := false
			c.TrailingSlash = &f
		}
	}
	if cfgDetect.MatchString(src) {
		c.MarkdownFormat = "detect"
	}
	blocks := docsOptions(src)
	if len(blocks) == 0 && cfgDocsFalse.MatchString(src) {
		c.Notes = append(c.Notes, "the classic preset's docs are disabled (docs: false) and no docs plugin options were found; assumed routeBasePath \"docs\"")
	}
	if len(blocks) > 0 {
		c.Docs = c.Docs[:0]
		for _, block := range blocks {
			d := DocsInstance{ID: "default", Path: "docs", RouteBasePath: "docs"}
			if m := cfgRouteBase.FindStringSubmatch(block); m != nil {
				d.RouteBasePath = strings.Trim(m[2], "/")
			}
			if m := cfgPath.FindStringSubmatch(block); m != nil {
				if p := strings.Trim(strings.TrimPrefix(m[2], "./"), "/"); p != "" {
					d.Path = p
				}
			}
			if m := cfgPluginID.FindStringSubmatch(block); m != nil && m[2] != "" {
				d.ID = m[2]
			}
			c.Docs = append(c.Docs, d)
		}
		c.RouteBasePath, c.DocsPath = c.Docs[0].RouteBasePath, c.Docs[0].Path
	}
	return c
}

func normalizeBaseURL(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	if !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return s
}

// docsOptions returns the text of every docs plugin options object: the
// classic preset's first `docs: {…}`, then each
// '@docusaurus/plugin-content-docs' plugin's.
func docsOptions(src string) []string {
	var out []string
	if loc := cfgDocsBlock.FindStringIndex(src); loc != nil {
		open := loc[1] - 1
		if end := matchBrace(src, open); end > open {
			out = append(out, src[open:end+1])
		}
	}
	for _, loc := range cfgDocsPlugin.FindAllStringIndex(src, -1) {
		open := loc[1] - 1
		if end := matchBrace(src, open); end > open {
			out = append(out, src[open:end+1])
		}
	}
	return out
}

// matchBrace returns the index of the brace closing the one at open,
// skipping string literals, or -1.
func matchBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\'', '"', '`':
			for i++; i < len(s) && s[i] != ch; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stripJSComments removes // and /* */ comments outside string literals.
func stripJSComments(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			j := i + 1
			for j < len(s) && s[j] != ch {
				if s[j] == '\\' {
					j++
				}
				if ch != '`' && j < len(s) && s[j] == '\n' {
					break
				}
				j++
			}
			if j >= len(s) {
				j = len(s) - 1
			}
			b.WriteString(s[i : j+1])
			i = j
		case ch == '/' && i+1 < len(s) && s[i+1] == '/':
			// A "//" right after ':' is part of a URL in an unquoted
			// context only in broken configs; treat it as a comment.
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
		case ch == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
