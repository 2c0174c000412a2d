package docusaurus

import "testing"

// Slugs and ids of docs as Docusaurus 3.5 derives them (the routes of the
// real-build fixtures under testdata/sites check the same rules against a
// build).
func TestDocSlug(t *testing.T) {
	tests := []struct{ rel, slug, id, want, wantID string }{
		{"a.md", "", "", "/a", "a"},
		{"index.md", "", "", "/", "index"},
		{"m/Guides.md", "", "", "/m/Guides", "m/Guides"},
		{"Guides/guides.md", "", "", "/Guides/", "Guides/guides"},
		{"01-g/g.md", "", "", "/g/g", "01-g/g"},
		{"01-g/01-g.md", "", "", "/g/", "01-g/g"},
		{"m/01-index.md", "", "", "/m/index", "m/index"},
		{"m/x.md", "../top", "", "/top", "m/x"},
		{"m/x.md", "sub/", "", "/m/sub/", "m/x"},
		{"m/x.md", "", "custom", "/m/custom", "m/custom"},
		{"m/index.md", "", "custom", "/m/", "m/custom"},
		{"m/index.md", "rel", "", "/m/rel", "m/index"},
		{"m/x.mdx", "/abs/y", "", "/abs/y", "m/x"},
		{"m/x.md", " rel ", "", "/m/rel", "m/x"},
		{"2021-01-31-release.md", "", "", "/2021-01-31-release", "2021-01-31-release"},
		{"1.1-intro/page.md", "", "", "/1.1-intro/page", "1.1-intro/page"},
		{`win\path.md`, "", "", "/win/path", "win/path"},
	}
	for _, tt := range tests {
		got, id := DocSlug(tt.rel, tt.slug, tt.id)
		if got != tt.want || id != tt.wantID {
			t.Errorf("DocSlug(%q, slug %q, id %q) = %q, %q; want %q, %q", tt.rel, tt.slug, tt.id, got, id, tt.want, tt.wantID)
		}
	}
}

func TestApplyTrailingSlash(t *testing.T) {
	tests := []struct{ p, base, setting, want string }{
		{"/b/docs/x", "/b/", "", "/b/docs/x"},
		{"/b/docs/m/", "/b/", "", "/b/docs/m/"},
		{"/b/docs/x", "/b/", "true", "/b/docs/x/"},
		{"/b/docs/x/", "/b/", "true", "/b/docs/x/"},
		{"/b/docs/m/", "/b/", "false", "/b/docs/m"},
		{"/b/docs/x", "/b/", "false", "/b/docs/x"},
		{"/b/", "/b/", "false", "/b/"},
		{"/", "", "false", "/"},
		{"/", "", "true", "/"},
	}
	for _, tt := range tests {
		if got := ApplyTrailingSlash(tt.p, tt.base, tt.setting); got != tt.want {
			t.Errorf("ApplyTrailingSlash(%q, %q, %q) = %q, want %q", tt.p, tt.base, tt.setting, got, tt.want)
		}
	}
}

func TestStripNumberPrefix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"01-intro", "intro"},
		{"003 - My Doc", "My Doc"},
		{"1_setup", "setup"},
		{"MyDoc", "MyDoc"},
		{"a1-doc", "a1-doc"},
		{"2021-01-31 - Doc", "2021-01-31 - Doc"},
		{"7.0-foo", "7.0-foo"},
		{"1.1-introduction", "1.1-introduction"},
	}
	for _, tt := range tests {
		if got := StripNumberPrefix(tt.in); got != tt.want {
			t.Errorf("StripNumberPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A number prefix is stripped only when a name follows it.
func TestStripNumberPrefixNeedsAName(t *testing.T) {
	for _, in := range []string{"01 - - x", "01-", "01"} {
		if got := StripNumberPrefix(in); got != in {
			t.Errorf("StripNumberPrefix(%q) = %q, want it unchanged", in, got)
		}
	}
	if got := StripPathNumberPrefixes("01-a/02-b/c"); got != "a/b/c" {
		t.Errorf("StripPathNumberPrefixes = %q", got)
	}
}
