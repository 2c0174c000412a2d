package links

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// balanceSite is a site whose page has an explicit heading id, a heading
// with "&", and a front matter slug.
func balanceSite(t *testing.T) *Site {
	t.Helper()
	fsys := fstest.MapFS{
		"docusaurus.config.js": {Data: []byte("module.exports = { url: 'https://x.org', baseUrl: '/', trailingSlash: false };\n")},
		"docs/balance.md":      {Data: []byte("# Balance\n\n## Zero Moment Point {#zmp}\n\nText.\n\n## Sensors & Actuators\n\nText.\n\n## Gait Planning\n\nText.\n")},
		"docs/moved.md":        {Data: []byte("---\nslug: /walking\n---\n\n# Walking\n\n## Steps\n\nText.\n")},
	}
	s, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A fix is offered only when it resolves, and the cause names the slug
// rule when another rule made the anchor.
func TestSuggestionsAreRealAnchorsAndNameTheRule(t *testing.T) {
	site := balanceSite(t)
	c := NewLocalChecker(site)
	ctx := context.Background()
	tests := []struct {
		url, sug, cause, notCause string
	}{
		// The {#zmp} marker slugged into the anchor: the id is zmp.
		{"/docs/balance#zero-moment-point-zmp", "zmp", "explicit heading id", "renamed"},
		{"/docs/balance#zero-moment-point", "zmp", "explicit heading id", "renamed"},
		// github-slugger keeps both spaces around a deleted "&".
		{"/docs/balance#sensors-actuators", "sensors--actuators", `slug rule mismatch: the page's id for "Sensors & Actuators" is sensors--actuators (github-slugger: deletes '&'`, "renamed"},
		{"/docs/balance#sensors-and-actuators", "sensors--actuators", `"&" written as "and"`, "renamed"},
		{"/docs/balance#sensors-amp-actuators", "sensors--actuators", "slug rule mismatch", "renamed"},
		{"/docs/balance#gait-plan", "gait-planning", "heading renamed?", ""},
		// The front matter slug moved the page; #zmp is not on it, so
		// the page is offered without the anchor.
		{"/docs/moved#zmp", "https://x.org/docs/walking", "front matter slug mismatch", ""},
		{"/docs/moved#steps", "https://x.org/docs/walking#steps", "front matter slug mismatch", "no anchor"},
		// The moved page's heading under another slug rule: the right id.
		{"/docs/moved/#steps", "https://x.org/docs/walking#steps", "front matter slug mismatch", ""},
	}
	for _, tt := range tests {
		r := c.Check(ctx, tt.url)
		if !r.Status.Failed() || r.Suggestion != tt.sug || !strings.Contains(r.Cause, tt.cause) || (tt.notCause != "" && strings.Contains(r.Cause, tt.notCause)) {
			t.Errorf("Check(%q) = suggestion %q, cause %q; want %q, cause ~%q", tt.url, r.Suggestion, r.Cause, tt.sug, tt.cause)
			continue
		}
		if fix := c.Check(ctx, r.SuggestedURL()); fix.Status.Failed() {
			t.Errorf("Check(%q) suggests %s, which is itself %s", tt.url, r.SuggestedURL(), fix.Status)
		}
	}
}

// diagnoseAnchor never offers an id the page does not have, even when a
// heading's id is not among the page's anchors (a heading the built page
// gives no id).
func TestDiagnoseAnchorOffersOnlyRealAnchors(t *testing.T) {
	heads := []Heading{
		{ID: "zero-moment-point-zmp", Text: "Zero Moment Point zmp", Level: 2, NoAnchor: true},
		{ID: "zmp", Text: "Zero Moment Point", Level: 2, Explicit: true},
	}
	sug, cause := diagnoseAnchor("zero-moment-point-zmp-1", heads, []string{"zmp"})
	if sug != "zmp" {
		t.Errorf("suggestion %q (%s), want zmp", sug, cause)
	}
	html := []Heading{{ID: "sensors--actuators", Text: "Sensors & Actuators", Level: 2, NoAnchor: true}}
	sug, cause = diagnoseAnchor("sensors-actuators", html, nil)
	if sug != "" {
		t.Errorf("suggestion %q (%s) on a page without anchors", sug, cause)
	}
}
