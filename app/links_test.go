package app

import (
	"context"
	"strings"
	"testing"

	"ragscope/config"
	"ragscope/links"
	"ragscope/ui"
)

func TestLinkStatusOf(t *testing.T) {
	tests := []struct {
		in         links.Result
		state      links.Status
		suggest    string
		wantDetail bool
	}{
		{links.Result{Status: links.StatusOK}, ui.LinkOK, "", false},
		{links.Result{Status: links.StatusRedirected, RedirectTo: "https://x/a/"}, ui.LinkRedirected, "https://x/a/", false},
		{links.Result{Status: links.StatusAnchorMissing, URL: "https://x/a#1-1-intro", Anchor: "1-1-intro", Suggestion: "11-intro", Cause: "slug rule mismatch"}, ui.LinkAnchorMissing, "https://x/a#11-intro", true},
		{links.Result{Status: links.StatusAnchorMissing, URL: "https://x/a#gone", Anchor: "gone"}, ui.LinkAnchorMissing, "", true},
		// A heading the built page gives no id: the page itself is suggested.
		{links.Result{Status: links.StatusAnchorMissing, URL: "https://x/a#title", Anchor: "title", Suggestion: "https://x/a", Cause: "heading without an anchor"}, ui.LinkAnchorMissing, "https://x/a", true},
		{links.Result{Status: links.StatusPageMissing, Page: "/a", Suggestion: "https://x/b"}, ui.LinkPageMissing, "https://x/b", true},
		{links.Result{Status: links.StatusError, Error: "boom"}, ui.LinkUnknown, "", true},
	}
	for _, tt := range tests {
		got := linkStatusOf(tt.in)
		if got.State != tt.state || got.Suggest != tt.suggest || (got.Detail != "") != tt.wantDetail {
			t.Errorf("%+v -> %+v", tt.in, got)
		}
	}
}

func TestTUILinkStatusOnDemo(t *testing.T) {
	cfg := config.Default()
	cfg.SlugStyle = "simple"
	be, err := (&Assembler{}).Open(context.Background(), FromConfig(cfg), Search)
	if err != nil {
		t.Fatal(err)
	}
	check, note := LinkStatus(be)
	if check == nil || note != "" {
		t.Fatalf("no link checker for the demo (%q)", note)
	}
	st, err := check(context.Background(), "https://physical-ai.example.org/textbook/docs/intro#sensors-actuators")
	if err != nil || st.State != ui.LinkAnchorMissing || st.Suggest != "https://physical-ai.example.org/textbook/docs/intro#sensors--actuators" {
		t.Fatalf("status = %+v, %v", st, err)
	}
	st, _ = check(context.Background(), "https://physical-ai.example.org/textbook/docs/intro#sensors--actuators")
	if st.State != ui.LinkOK {
		t.Fatalf("good link = %+v", st)
	}
}

// A bad --site is a note at start, not a surprise on the first check.
func TestTUILinkStatusBadSiteIsANote(t *testing.T) {
	be, err := (&Assembler{}).Open(context.Background(), FromConfig(config.Default()), Search)
	if err != nil {
		t.Fatal(err)
	}
	be.Setup.Settings.SiteDir = t.TempDir()
	check, note := LinkStatus(be)
	if check != nil || !strings.HasPrefix(note, "Link states off: ") {
		t.Fatalf("check = %v, note = %q", check != nil, note)
	}
}
