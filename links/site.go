// Package links audits citation links against a Docusaurus site: it models
// the site's pages and heading anchors from its source folder (routes and
// ids derived as Docusaurus derives them) or checks the live site over
// HTTP, and reports, for every distinct citation URL of a collection,
// whether the page and the #anchor exist, why not, and what the right link
// is.
package links

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strings"

	"ragscope/internal/readlimit"
	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// ErrNoSite is matched (errors.Is) when a folder is not a Docusaurus site.
var ErrNoSite = errors.New("not a Docusaurus site")

// Page is one doc page of a site.
type Page struct {
	// Route is the page's canonical path, baseUrl included and trailing
	// slash applied, e.g. "/book/docs/module-1/intro".
	Route string `json:"route"`
	// Source is the file, relative to the site folder ("docs/m1/01-intro.md").
	Source string `json:"source"`
	// DocID is the Docusaurus doc id ("m1/intro").
	DocID string `json:"doc_id"`
	// Slug and FrontMatterID are the front matter values, if any.
	Slug          string `json:"slug,omitempty"`
	FrontMatterID string `json:"front_matter_id,omitempty"`
	// Title is the front matter title, else the first H1, else "".
	Title string `json:"title,omitempty"`
	// Draft pages are not published in production builds.
	Draft bool `json:"draft,omitempty"`
	// Generated is true for a category's generated index page (Source is
	// its _category_ file; it has no headings).
	Generated bool `json:"generated,omitempty"`
	// Headings in document order.
	Headings []Heading `json:"headings"`
	// OtherIDs are element ids written in the page's HTML/JSX.
	OtherIDs []string `json:"other_ids,omitempty"`
	// pathRoute is where the page would be served without front matter
	// slug and id (the route a citation built from the file path gets).
	pathRoute string
	anchors   map[string]int // id -> index in Headings, or -1 for OtherIDs
	// body (the partials it renders inlined) and mdx are kept for the
	// content check (pageTokens).
	body string
	mdx  bool
}

// HasAnchor reports whether id is an anchor on the built page (headings
// with NoAnchor are not).
func (p *Page) HasAnchor(id string) bool {
	_, ok := p.anchors[id]
	return ok
}

// Anchors returns every anchor of the page, headings first.
func (p *Page) Anchors() []string {
	out := make([]string, 0, len(p.Headings)+len(p.OtherIDs))
	for _, h := range p.Headings {
		if !h.NoAnchor {
			out = append(out, h.ID)
		}
	}
	return append(out, p.OtherIDs...)
}

// Site is a Docusaurus site modelled from its source folder.
type Site struct {
	// Config is what was read from the config file.
	Config SiteConfig `json:"config"`
	// ConfigFile is the config's file name ("" when none was found).
	ConfigFile string `json:"config_file"`
	// Pages sorted by route.
	Pages []*Page `json:"pages"`
	// Warnings are problems that did not stop loading (bad front matter,
	// duplicate routes).
	Warnings []string `json:"warnings,omitempty"`

	byRoute  map[string]*Page
	byPath   map[string]*Page
	docsBase string // DocsBase of the current docs folder
	siteContent
}

// LoadSiteDir models the Docusaurus site in dir (the folder holding
// docusaurus.config.js or .ts and docs/).
func LoadSiteDir(dir string) (*Site, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("site folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("site folder %s is a file: %w", dir, ErrNoSite)
	}
	s, err := LoadSite(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return s, nil
}

// LoadSiteDirBase is LoadSiteDir for a folder that may have no Docusaurus
// config: then docsBase (the URL of the docs route citations are built on,
// e.g. "https://me.github.io/book/docs/"; "" for none) gives the site's url
// and baseUrl in place of the defaults, so citations on it are checked
// rather than all reported missing. A folder with a config keeps its own.
func LoadSiteDirBase(dir, docsBase string) (*Site, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("site folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("site folder %s is a file: %w", dir, ErrNoSite)
	}
	s, err := loadSiteBase(os.DirFS(dir), docsBase)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return s, nil
}

// LoadSite models the Docusaurus site at the root of fsys: the config, then
// for every docs plugin instance and every version (versions.json: the
// first version is served at the instance's route, the others under their
// name, the current docs under "next") each *.md(x) that Docusaurus would
// publish (files and folders starting with "_" are partials and skipped),
// with routes and heading ids, and the generated index page of each
// category whose _category_.json or .yml gives a link slug.
func LoadSite(fsys fs.FS) (*Site, error) { return loadSiteBase(fsys, "") }

// loadSiteBase is LoadSite, with docsBase standing in for a missing config's
// url and baseUrl (see LoadSiteDirBase).
func loadSiteBase(fsys fs.FS, docsBase string) (*Site, error) {
	s := &Site{}
	s.Config, s.ConfigFile, _ = docusaurus.FindConfig(fsys, ".")
	if s.ConfigFile == "" {
		note := "no docusaurus.config.js/ts found; Docusaurus defaults assumed (baseUrl /, docs at /docs/)"
		if cfg, ok := configFromDocsBase(s.Config, docsBase); ok {
			s.Config = cfg
			note = fmt.Sprintf("no docusaurus.config.js/ts found; url %s and baseUrl %s taken from the docs base URL %s", cfg.URL, cfg.BaseURL, docsBase)
		}
		s.Config.Notes = append(s.Config.Notes, note)
	}
	s.docsBase = s.Config.CurrentDocsBase(fsys, ".")
	docs := s.Config.DocsPath
	st, err := fs.Stat(fsys, docs)
	if err != nil || !st.IsDir() {
		hint := "point --site at the folder that holds docusaurus.config.js and " + docs + "/"
		if s.ConfigFile == "" {
			if _, err := fs.Stat(fsys, "intro.md"); err == nil {
				hint = "this looks like the docs folder itself; " + hint
			}
		}
		return nil, fmt.Errorf("no %s/ folder (%s): %w", docs, hint, ErrNoSite)
	}
	for _, inst := range s.Config.Docs {
		for _, tree := range s.versionTrees(fsys, inst) {
			if err := s.walkDocs(fsys, tree); err != nil {
				return nil, err
			}
		}
	}
	s.index()
	return s, nil
}

// configFromDocsBase is cfg (Docusaurus's defaults) served at docsBase:
// its origin is the url; a path ending in /docs/ is baseUrl + the default
// routeBasePath, any other path is the baseUrl with docs at its root.
// ok is false when docsBase is not an absolute http(s) URL.
func configFromDocsBase(cfg SiteConfig, docsBase string) (SiteConfig, bool) {
	u, err := url.Parse(strings.TrimSpace(docsBase))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, false
	}
	path := "/" + strings.Trim(u.Path, "/") + "/"
	if path == "//" {
		path = "/"
	}
	route := ""
	if strings.HasSuffix(path, "/docs/") {
		path, route = strings.TrimSuffix(path, "docs/"), "docs"
	}
	cfg.URL = u.Scheme + "://" + u.Host
	cfg.BaseURL = path
	cfg.RouteBasePath = route
	docs := append([]docusaurus.DocsInstance(nil), cfg.Docs...)
	if len(docs) > 0 {
		docs[0].RouteBasePath = route
	}
	cfg.Docs = docs
	return cfg, true
}

// docsTree is one folder of docs served under one route prefix.
type docsTree struct {
	dir    string // folder in the site
	prefix string // routeBasePath plus the version's path, no slashes around
}

// versionTrees lists the folders of an instance: the current docs, and the
// released versions when its versions file exists.
func (s *Site) versionTrees(fsys fs.FS, inst docusaurus.DocsInstance) []docsTree {
	versions, err := inst.Versions(fsys, ".")
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%v (versioned docs not modelled)", err))
	}
	trees := []docsTree{{dir: inst.Path, prefix: inst.CurrentRoutePrefix(versions)}}
	for i, v := range versions {
		t := docsTree{dir: inst.VersionDir(v), prefix: strings.Trim(inst.RouteBasePath+"/"+v, "/")}
		if i == 0 {
			t.prefix = inst.RouteBasePath
		}
		trees = append(trees, t)
	}
	return trees
}

func (s *Site) walkDocs(fsys fs.FS, tree docsTree) error {
	docs := tree.dir
	if st, err := fs.Stat(fsys, docs); err != nil || !st.IsDir() {
		s.Warnings = append(s.Warnings, fmt.Sprintf("docs folder %s/ not found; its pages are not modelled", docs))
		return nil
	}
	err := fs.WalkDir(fsys, docs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != docs {
			s.addCategory(fsys, p, tree)
		}
		if p != docs && (strings.HasPrefix(name, "_") || name == "node_modules" || strings.HasPrefix(name, ".")) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isDocFile(name) {
			return nil
		}
		b, err := readlimit.ReadFS(fsys, p, readlimit.SiteFile)
		if err != nil {
			return err
		}
		s.addPage(docusaurus.FileReader(fsys), p, strings.TrimPrefix(p, docs+"/"), string(b), tree.prefix)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read docs: %w", err)
	}
	return nil
}

// addCategory adds the generated index page of a category folder whose
// _category_.json (or .yml/.yaml) has a generated-index link with a slug.
func (s *Site) addCategory(fsys fs.FS, dir string, tree docsTree) {
	cat, ok, err := docusaurus.ReadCategory(fsys, dir)
	if err != nil {
		s.Warnings = append(s.Warnings, err.Error())
		return
	}
	if !ok || cat.Link.Type != "generated-index" {
		return
	}
	if cat.Link.Slug == "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: a generated index without a link slug is not modelled", cat.Source))
		return
	}
	s.Pages = append(s.Pages, &Page{
		Source: cat.Source, Title: cat.Label, Generated: true,
		Route: s.route(tree.prefix, cat.Link.Slug), pathRoute: s.route(tree.prefix, cat.Link.Slug),
	})
}

func isDocFile(name string) bool {
	l := strings.ToLower(name)
	return (strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".mdx")) && !strings.Contains(l, ".test.")
}

// addPage parses one doc; rel is its path inside the docs folder, prefix
// the route under baseUrl its folder is served at, read reads the site's
// files (the markdown partials the doc renders).
func (s *Site) addPage(read func(string) ([]byte, error), source, rel, src, prefix string) {
	fm, body, skipped, err := splitFrontMatter(src)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v (the keys that parse were kept)", source, err))
	}
	p := &Page{Source: source, Slug: strings.TrimSpace(fm.Slug), FrontMatterID: strings.TrimSpace(fm.ID), Title: fm.Title, Draft: fm.Draft}
	slug, id := docusaurus.DocSlug(rel, p.Slug, p.FrontMatterID)
	p.DocID = id
	p.Route = s.route(prefix, slug)
	pathSlug, _ := docusaurus.DocSlug(rel, "", "")
	p.pathRoute = s.route(prefix, pathSlug)
	mdx := s.Config.MarkdownFormat != "detect" || strings.HasSuffix(strings.ToLower(source), ".mdx")
	ex := docusaurus.Expanded{Body: body}
	if mdx {
		ex = docusaurus.ExpandPartials(read, source, body, skipped)
	}
	p.Headings, p.OtherIDs = parseHeadings(ex, skipped, mdx)
	p.body, p.mdx = ex.Body, mdx
	if p.Title == "" {
		for _, h := range p.Headings {
			if h.Level == 1 {
				p.Title = h.Text
				break
			}
		}
	}
	s.Pages = append(s.Pages, p)
}

// route turns a doc slug into the page's canonical path: baseUrl + prefix
// (routeBasePath and version) + slug, then trailingSlash applied (never to
// baseUrl itself).
func (s *Site) route(prefix, slug string) string {
	p := s.Config.BaseURL
	if prefix != "" {
		p += prefix + "/"
	}
	p = strings.TrimSuffix(p, "/") + "/" + strings.TrimPrefix(slug, "/")
	p = collapseSlashes(p)
	return docusaurus.ApplyTrailingSlash(p, s.Config.BaseURL, s.Config.TrailingSlashSetting())
}

func collapseSlashes(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}

// index builds the lookup maps and records duplicate routes.
func (s *Site) index() {
	sort.Slice(s.Pages, func(i, j int) bool {
		if s.Pages[i].Route != s.Pages[j].Route {
			return s.Pages[i].Route < s.Pages[j].Route
		}
		return s.Pages[i].Source < s.Pages[j].Source
	})
	s.byRoute = make(map[string]*Page, len(s.Pages))
	s.byPath = make(map[string]*Page, len(s.Pages))
	for _, p := range s.Pages {
		p.anchors = make(map[string]int, len(p.Headings)+len(p.OtherIDs))
		for i := len(p.OtherIDs) - 1; i >= 0; i-- {
			p.anchors[p.OtherIDs[i]] = -1
		}
		for i := len(p.Headings) - 1; i >= 0; i-- {
			if !p.Headings[i].NoAnchor {
				p.anchors[p.Headings[i].ID] = i
			}
		}
		if p.Draft {
			continue
		}
		key := trimSlash(p.Route)
		if prev, ok := s.byRoute[key]; ok {
			s.Warnings = append(s.Warnings, fmt.Sprintf("duplicate route %s: %s and %s (Docusaurus keeps one)", p.Route, prev.Source, p.Source))
			continue
		}
		s.byRoute[key] = p
	}
	for _, p := range s.Pages {
		if p.pathRoute != p.Route {
			if _, taken := s.byRoute[trimSlash(p.pathRoute)]; !taken {
				s.byPath[trimSlash(p.pathRoute)] = p
			}
		}
	}
}

func trimSlash(p string) string {
	if p == "/" {
		return p
	}
	return strings.TrimSuffix(p, "/")
}

// PageByRoute returns the published page served at urlPath (either
// trailing-slash form) or nil.
func (s *Site) PageByRoute(urlPath string) *Page {
	return s.byRoute[trimSlash(urlPath)]
}

// PageBySource returns the page of a source file (as in Page.Source, or a
// path ending in "docs/…") or nil.
func (s *Site) PageBySource(source string) *Page {
	source = strings.ReplaceAll(source, "\\", "/")
	for _, p := range s.Pages {
		if p.Source == source || strings.HasSuffix(source, "/"+p.Source) {
			return p
		}
	}
	return nil
}

// URL returns the absolute (when the config has a url) URL of p with anchor.
func (s *Site) URL(p *Page, anchor string) string {
	u := s.Config.URL + p.Route
	if anchor != "" {
		u += "#" + anchor
	}
	return u
}

// DocsBase is the URL the pages of the site's current docs folder are
// served under (with released versions, the "next" version's).
func (s *Site) DocsBase() string { return s.docsBase }

// URLBuilder returns a retrieval.URLBuilder for the pages of the current
// docs folder, for callers that have no configured base URL.
func (s *Site) URLBuilder(style docusaurus.SlugStyle) retrieval.URLBuilder {
	return retrieval.URLBuilder{DocsBase: s.docsBase, SiteURL: s.Config.URL, Style: style, TrailingSlash: s.Config.TrailingSlashSetting()}
}

// Routes returns the route of every published page, sorted.
func (s *Site) Routes() []string {
	out := make([]string, 0, len(s.byRoute))
	for _, p := range s.byRoute {
		out = append(out, p.Route)
	}
	sort.Strings(out)
	return out
}
