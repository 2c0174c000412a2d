package links

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

// partialSite is a site whose pages render markdown partials: relative and
// @site/ imports, a partial that renders another, one imported but never
// rendered, one rendered inside a code fence (not rendered), a missing one
// and one that renders itself.
func partialSite(t *testing.T) *Site {
	t.Helper()
	fsys := fstest.MapFS{
		"docusaurus.config.js": {Data: []byte("module.exports = { url: 'https://book.example.org', baseUrl: '/', trailingSlash: false };\n")},
		"docs/setup.mdx": {Data: []byte(`---
title: Setup
---

import Install from './_partials/_install.mdx';
import Shared from '@site/docs/_shared.md';
import Unused from './_unused.mdx';
import Missing from './_missing.mdx';
import Loop from './_loop.mdx';

## Setup

The robot arm controller runs on the onboard computer of the mobile base.

<Install />

## Calibration

The gripper calibration routine closes the fingers on a reference block.

<Shared/>

` + "```mdx" + `
<Install />
` + "```" + `

<Missing />

<Loop />
`)},
		"docs/_partials/_install.mdx": {Data: []byte(`---
description: not a page
---
import Source from '../_source.mdx';

## Install

Install the workspace with colcon build, then source the overlay setup file before you run any node.

<Source />

### Setup

Torque sensors in every joint report the load before the arm is allowed to lift anything heavy.
`)},
		"docs/_source.mdx": {Data: []byte("## Sourcing\n\nEvery new terminal needs the overlay sourced again before ros2 run finds the package.\n")},
		"docs/_shared.md":  {Data: []byte("## Shared notes\n\nKeep the emergency stop within reach of whoever watches the arm move.\n")},
		"docs/_unused.mdx": {Data: []byte("## Never shown\n")},
		"docs/_loop.mdx":   {Data: []byte("import Loop from './_loop.mdx';\n\n## Loop\n\n<Loop />\n")},
		"docs/plain.md":    {Data: []byte("# Plain\n\n## Only section\n\nNo partials here at all.\n")},
		"docs/_partials/x": {Data: []byte("not markdown")},
		"docs/cycle-a.mdx": {Data: []byte("import B from './_b.mdx';\n\n## A\n\n<B />\n")},
		"docs/_b.mdx":      {Data: []byte("import A from './_c.mdx';\n\n## B\n\n<A />\n")},
		"docs/_c.mdx":      {Data: []byte("import B from './_b.mdx';\n\n## C\n\n<B />\n")},
	}
	site, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// The headings of rendered partials are the page's, in place, with ids of
// their own slugger ("setup" twice: the page's and the partial's); partial
// files are not pages; a missing partial or one inside code adds nothing.
func TestPartialsRenderedInPages(t *testing.T) {
	site := partialSite(t)
	p := site.PageBySource("docs/setup.mdx")
	if p == nil {
		t.Fatal("no setup page")
	}
	type head struct{ ID, Partial string }
	var got []head
	for _, h := range p.Headings {
		got = append(got, head{h.ID, h.Partial})
	}
	want := []head{
		{"setup", ""},
		{"install", "docs/_partials/_install.mdx"},
		{"sourcing", "docs/_source.mdx"},
		{"setup", "docs/_partials/_install.mdx"},
		{"calibration", ""},
		{"shared-notes", "docs/_shared.md"},
		{"loop", "docs/_loop.mdx"},
		{"loop", "docs/_loop.mdx"},
		{"loop", "docs/_loop.mdx"},
		{"loop", "docs/_loop.mdx"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("headings\n got %v\nwant %v", got, want)
	}
	for _, h := range p.Headings {
		if h.ID == "install" && h.Line != 6 {
			t.Errorf("the partial's heading is on line %d of the partial, want 6", h.Line)
		}
		if h.ID == "calibration" && h.Line != 17 {
			t.Errorf("the page's heading after a partial is on line %d of the page, want 17", h.Line)
		}
	}
	for _, a := range []string{"install", "sourcing", "shared-notes"} {
		if !p.HasAnchor(a) {
			t.Errorf("anchor %q of a rendered partial is missing", a)
		}
	}
	if p.HasAnchor("never-shown") {
		t.Error("an imported partial that is never rendered added its anchor")
	}
	for _, src := range []string{"docs/_shared.md", "docs/_partials/_install.mdx", "docs/_source.mdx"} {
		if site.PageBySource(src) != nil {
			t.Errorf("partial %s became a page", src)
		}
	}
	if a := site.PageBySource("docs/cycle-a.mdx"); a == nil || len(a.Headings) > 5 {
		t.Errorf("partials that render each other: %+v", a)
	}
	if plain := site.PageBySource("docs/plain.md"); plain == nil || len(plain.Headings) != 2 || plain.Headings[1].Line != 3 {
		t.Errorf("a page without partials: %+v", plain)
	}
}

// Text a page shows from a partial is the page's, in the partial's section:
// a chunk of it cited there is fine, cited at another section it is a
// wrong-section citation pointing at the partial's heading, never "text not
// found".
func TestContentCheckReadsPartials(t *testing.T) {
	site := partialSite(t)
	install := "## Install\n\nInstall the workspace with colcon build, then source the overlay setup file before you run any node."
	for _, tc := range []struct {
		section, text, verdict, found string
	}{
		{"Install", install, "", ""},
		{"Shared notes", "Keep the emergency stop within reach of whoever watches the arm move.", "", ""},
		{"Calibration", install, VerdictWrongSection, "install"},
		{"Setup", "Every new terminal needs the overlay sourced again before ros2 run finds the package.", VerdictWrongSection, "sourcing"},
		// The partial's "Setup" has the id of the page's "Setup", which a
		// browser finds first: the way to its text is the heading above it
		// on the built page, the nested partial's Sourcing.
		{"Setup", "Torque sensors in every joint report the load before the arm is allowed to lift anything heavy.", VerdictWrongSection, "sourcing"},
	} {
		c := retrieval.Chunk{ID: "c", DocPath: "docs/setup.mdx", Section: tc.section, Text: tc.text}
		rep := auditContent(t, site, "", c)
		if tc.verdict == "" {
			if len(rep.Content.Findings) != 0 {
				t.Errorf("%s: want ok, got %+v", tc.section, rep.Content.Findings)
			}
			continue
		}
		if len(rep.Content.Findings) != 1 || rep.Content.Findings[0].Verdict != tc.verdict || rep.Content.Findings[0].FoundAnchor != tc.found {
			t.Errorf("%s: want %s at #%s, got %+v", tc.section, tc.verdict, tc.found, rep.Content.Findings)
		} else if f := rep.Content.Findings[0]; !strings.HasSuffix(f.FoundURL, "/docs/setup#"+tc.found) {
			t.Errorf("%s: found URL %s", tc.section, f.FoundURL)
		}
	}
}
