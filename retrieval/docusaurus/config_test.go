package docusaurus

import (
	"testing"
	"testing/fstest"
)

func TestDocsBaseFromConfig(t *testing.T) {
	tests := []struct{ name, src, docs, origin, trailing string }{
		{"classic", `url: 'https://x.io', baseUrl: '/b/', presets: [['classic', {docs: {sidebarPath: 's'}, blog: {routeBasePath: 'blog'}}]]`, "https://x.io/b/docs/", "https://x.io", ""},
		{"docs only mode", "url: \"https://x.io\",\nbaseUrl: \"/\",\ndocs: {\n  routeBasePath: '/',\n}", "https://x.io/", "https://x.io", ""},
		{"env fallback and comments", "// url: 'https://old.io',\nurl: process.env.SITE || 'https://new.io',\nbaseUrl: `/book/`,", "https://new.io/book/docs/", "https://new.io", ""},
		{"editUrl is not url", "docs: { editUrl: 'https://gh.com/x' },\n  url: 'https://y.io', baseUrl: '/'", "https://y.io/docs/", "https://y.io", ""},
		{"url with a path", "url: 'https://x.io/sub', baseUrl: '/sub/'", "https://x.io/sub/docs/", "https://x.io", ""},
		{"trailing slash false", "url: 'https://x.io', baseUrl: '/b/', trailingSlash: false,", "https://x.io/b/docs/", "https://x.io", "false"},
		{"trailing slash true", "url: 'https://x.io', trailingSlash: true,", "https://x.io/docs/", "https://x.io", "true"},
	}
	for _, tt := range tests {
		c := ParseConfig(tt.src)
		if c.DocsBase() != tt.docs || c.Origin() != tt.origin || c.TrailingSlashSetting() != tt.trailing {
			t.Errorf("%s: docs %q origin %q trailing %q; want %q %q %q", tt.name, c.DocsBase(), c.Origin(), c.TrailingSlashSetting(), tt.docs, tt.origin, tt.trailing)
		}
	}
	if c := ParseConfig("module.exports = {title: 'x'}"); c.Origin() != "" {
		t.Errorf("config without url has origin %q", c.Origin())
	}
}

func TestFindConfig(t *testing.T) {
	fsys := fstest.MapFS{
		"site/docusaurus.config.ts": {Data: []byte("export default { url: 'https://a.b', baseUrl: '/' }")},
	}
	c, file, ok := FindConfig(fsys, "site")
	if !ok || file != "site/docusaurus.config.ts" || c.DocsBase() != "https://a.b/docs/" {
		t.Fatalf("FindConfig = %+v %q %v", c, file, ok)
	}
	if _, _, ok := FindConfig(fsys, "."); ok {
		t.Fatal("found a config where there is none")
	}
}

func TestParseConfigDocsInstances(t *testing.T) {
	c := ParseConfig(`module.exports = {
  url: 'https://x.org', baseUrl: '/',
  markdown: { format: 'detect' },
  presets: [['classic', { docs: { routeBasePath: 'guide', path: './book' } }]],
  plugins: [
    ['@docusaurus/plugin-content-docs', { id: 'community', path: 'community', routeBasePath: 'community' }],
    ['@docusaurus/plugin-content-docs', { id: "api", path: "api-docs", routeBasePath: "/reference/" }],
  ],
};`)
	want := []DocsInstance{
		{ID: "default", Path: "book", RouteBasePath: "guide"},
		{ID: "community", Path: "community", RouteBasePath: "community"},
		{ID: "api", Path: "api-docs", RouteBasePath: "reference"},
	}
	if len(c.Docs) != len(want) {
		t.Fatalf("docs = %+v", c.Docs)
	}
	for i := range want {
		if c.Docs[i] != want[i] {
			t.Errorf("docs[%d] = %+v, want %+v", i, c.Docs[i], want[i])
		}
	}
	if c.RouteBasePath != "guide" || c.DocsPath != "book" || c.MarkdownFormat != "detect" {
		t.Errorf("config = %+v", c)
	}
	if c.Docs[1].VersionsFile() != "community_versions.json" || c.Docs[0].VersionDir("1.0") != "versioned_docs/version-1.0" || c.Docs[1].VersionDir("2") != "community_versioned_docs/version-2" {
		t.Errorf("version files: %s %s", c.Docs[1].VersionsFile(), c.Docs[1].VersionDir("2"))
	}
	if d := DefaultSiteConfig(); len(d.Docs) != 1 || d.Docs[0].RouteBasePath != "docs" || d.MarkdownFormat != "mdx" {
		t.Errorf("defaults = %+v", d)
	}
}

// With released versions the current docs folder is served under "next"
// (the slash-true fixture's real build shows /docs/next/intro/); without
// them, or with an empty list, at the route base path.
func TestCurrentDocsBase(t *testing.T) {
	cfg := ParseConfig(`module.exports = { url: 'https://x.org', baseUrl: '/b/' }`)
	tests := []struct {
		versions string
		want     string
		wantErr  bool
	}{
		{"", "https://x.org/b/docs/", false},
		{`["2.0", "1.0"]`, "https://x.org/b/docs/next/", false},
		{`[]`, "https://x.org/b/docs/", false},
		{`{"not": "a list"}`, "https://x.org/b/docs/", true},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{"site/docs/a.md": {Data: []byte("# A")}}
		if tt.versions != "" {
			fsys["site/versions.json"] = &fstest.MapFile{Data: []byte(tt.versions)}
		}
		if got := cfg.CurrentDocsBase(fsys, "site"); got != tt.want {
			t.Errorf("versions %q: CurrentDocsBase = %q, want %q", tt.versions, got, tt.want)
		}
		if _, err := cfg.Docs[0].Versions(fsys, "site"); (err != nil) != tt.wantErr {
			t.Errorf("versions %q: Versions error = %v", tt.versions, err)
		}
	}
	second := DocsInstance{ID: "guide", RouteBasePath: "guide"}
	if got := second.CurrentRoutePrefix([]string{"1.0"}); got != "guide/next" {
		t.Errorf("CurrentRoutePrefix = %q", got)
	}
	if got := (DocsInstance{ID: "default"}).CurrentRoutePrefix([]string{"1.0"}); got != "next" {
		t.Errorf("CurrentRoutePrefix at the site root = %q", got)
	}
}
