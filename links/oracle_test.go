package links

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"ragscope/retrieval/docusaurus/oracle"
)

// TestSiteModelMatchesRealBuild loads each oracle fixture site with the
// site model and compares it with what a real Docusaurus build published
// (the committed goldens): the same routes, exactly (trailing slash
// included), and on every doc page the same anchors.
func TestSiteModelMatchesRealBuild(t *testing.T) {
	for _, name := range oracle.Sites {
		t.Run(name, func(t *testing.T) {
			golden, err := oracle.ReadGolden(name)
			if err != nil {
				t.Fatal(err)
			}
			site, err := LoadSiteDir(filepath.Join(oracle.SitesDir(), name))
			if err != nil {
				t.Fatal(err)
			}
			var modelRoutes []string
			for _, r := range site.Routes() {
				modelRoutes = append(modelRoutes, r)
			}
			var builtRoutes []string
			for _, p := range golden.Pages {
				builtRoutes = append(builtRoutes, p.Route)
			}
			sort.Strings(modelRoutes)
			if strings.Join(modelRoutes, "\n") != strings.Join(builtRoutes, "\n") {
				t.Errorf("routes differ from the real build\nmodel:\n  %s\nbuilt:\n  %s", strings.Join(modelRoutes, "\n  "), strings.Join(builtRoutes, "\n  "))
			}
			for _, bp := range golden.Pages {
				p := site.PageByRoute(bp.Route)
				if p == nil {
					continue // reported above
				}
				if p.Route != bp.Route {
					t.Errorf("%s: model route %s", bp.Route, p.Route)
				}
				got := map[string]bool{}
				for _, a := range p.Anchors() {
					got[a] = true
				}
				want := map[string]bool{}
				for _, id := range bp.IDs {
					want[id] = true
				}
				for a := range got {
					if !want[a] {
						t.Errorf("%s (%s): the model has anchor %q, the built page does not", bp.Route, p.Source, a)
					}
				}
				for a := range want {
					if !got[a] {
						t.Errorf("%s (%s): the built page has id %q, the model does not", bp.Route, p.Source, a)
					}
				}
			}
		})
	}
}
