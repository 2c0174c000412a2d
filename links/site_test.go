package links

import (
	"errors"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// withConfig returns the fixture site with its config's trailingSlash line
// replaced by ts ("" removes it).
func withConfig(t *testing.T, dir, ts string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(dir + "/" + p)
		if err != nil {
			return err
		}
		if p == "docusaurus.config.js" {
			repl := ""
			if ts != "" {
				repl = "  trailingSlash: " + ts + ",\n"
			}
			b = []byte(strings.Replace(string(b), "  trailingSlash: false,\n", repl, 1))
		}
		m[p] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func routes(s *Site) map[string]string {
	out := map[string]string{}
	for _, p := range s.Pages {
		out[p.Source] = p.Route
	}
	return out
}

func TestRoutesTrailingSlash(t *testing.T) {
	base := map[string]string{
		"docs/intro.md":                 "/book/guide/intro",
		"docs/01-basics/index.md":       "/book/guide/basics/",
		"docs/01-basics/02-topics.md":   "/book/guide/basics/topics",
		"docs/01-basics/03-services.md": "/book/guide/basics/custom-services",
		"docs/01-basics/04-actions.md":  "/book/guide/basics/actions-guide",
		"docs/02-sim/02-sim.md":         "/book/guide/sim/",
		"docs/02-sim/gazebo.mdx":        "/book/guide/simulation/gazebo",
		"docs/03-ref/README.md":         "/book/guide/ref/",
		"docs/drafts.md":                "/book/guide/drafts",
		"docs/1.1-versions/page.md":     "/book/guide/1.1-versions/page",
	}
	for _, tc := range []struct {
		name, ts string
		fix      func(string) string
	}{
		{"undefined", "", func(r string) string { return r }},
		{"true", "true", func(r string) string { return strings.TrimSuffix(r, "/") + "/" }},
		{"false", "false", func(r string) string { return strings.TrimSuffix(r, "/") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSite(withConfig(t, "testdata/site", tc.ts))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for k, v := range base {
				want[k] = tc.fix(v)
			}
			if got := routes(s); !reflect.DeepEqual(got, want) {
				t.Errorf("routes:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestSiteConfigAndIDs(t *testing.T) {
	s, err := LoadSiteDir("testdata/site")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config
	if c.URL != "https://example.org" || c.BaseURL != "/book/" || c.RouteBasePath != "guide" || c.DocsPath != "docs" {
		t.Errorf("config = %+v", c)
	}
	if c.TrailingSlash == nil || *c.TrailingSlash {
		t.Errorf("trailingSlash = %v, want false", c.TrailingSlash)
	}
	if got := c.DocsBase(); got != "https://example.org/book/guide/" {
		t.Errorf("DocsBase = %s", got)
	}
	p := s.PageBySource("docs/intro.md")
	if p == nil {
		t.Fatal("intro.md not loaded")
	}
	var ids []string
	for _, h := range p.Headings {
		ids = append(ids, h.ID)
	}
	want := []string{"welcome-to-the-book", "11-intro", "sensors--actuators", "setup", "setup-1", "qos", "voice-commands--voice-cmd-", "rclpy-and-ros-2-basics", "setext-heading", "whats-a-digital-twin", "setup-2"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("intro ids:\n got %q\nwant %q", ids, want)
	}
	if !p.HasAnchor("custom-anchor") {
		t.Error(`<a id="custom-anchor"> not collected`)
	}
	if p.Title != "Welcome" {
		t.Errorf("title = %q", p.Title)
	}
	if a := s.PageBySource("docs/01-basics/04-actions.md"); a == nil || a.DocID != "01-basics/actions-guide" {
		t.Errorf("actions doc id: %+v", a)
	}
	if s.PageBySource("docs/_partials/snippet.md") != nil {
		t.Error("partials must be skipped")
	}
	if s.PageByRoute("/book/guide/drafts") != nil {
		t.Error("draft pages are not published")
	}
}

func TestParseConfigVariants(t *testing.T) {
	ts := `export default {
  url: process.env.SITE_URL ?? "https://me.github.io",
  baseUrl: '/',
  trailingSlash: true,
  plugins: [['@docusaurus/plugin-content-docs', { routeBasePath: '/', path: './content' }]],
};`
	c := ParseConfig(ts)
	if c.URL != "https://me.github.io" || c.BaseURL != "/" || c.RouteBasePath != "" || c.DocsPath != "content" || c.TrailingSlash == nil || !*c.TrailingSlash {
		t.Errorf("config = %+v", c)
	}
	if got := c.DocsBase(); got != "https://me.github.io/" {
		t.Errorf("DocsBase = %s", got)
	}
	c = ParseConfig(`module.exports = { title: 'x' }`)
	if c.BaseURL != "/" || c.RouteBasePath != "docs" || c.TrailingSlash != nil || len(c.Notes) == 0 {
		t.Errorf("defaults = %+v", c)
	}
}

func TestLoadSiteErrors(t *testing.T) {
	_, err := LoadSite(fstest.MapFS{"intro.md": {Data: []byte("# x")}})
	if !errors.Is(err, ErrNoSite) || !strings.Contains(err.Error(), "docs folder itself") {
		t.Errorf("err = %v", err)
	}
	if _, err := LoadSiteDir("testdata/nope"); err == nil {
		t.Error("missing folder must fail")
	}
}
