package links

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/docusaurus/oracle"
	"ragscope/retrieval/store/local"
)

// contentSite is a small site whose sections hold distinct prose, with
// front matter, an admonition, a code block, markup and an H4.
func contentSite(t *testing.T) *Site {
	t.Helper()
	fsys := fstest.MapFS{
		"docusaurus.config.js": {Data: []byte("module.exports = { url: 'https://book.example.org', baseUrl: '/', trailingSlash: false };\n")},
		"docs/robots.md": {Data: []byte(`---
title: Robots
sidebar_position: 2
---

# Robots

Robots sense the world through cameras and lidar before they plan any motion at all.

## Sensors

A **lidar** sweeps a [laser beam](https://example.org/lidar) across the room and measures
the time each pulse takes to come back to the receiver.

:::tip Calibrate first
Always calibrate the extrinsic transform between camera and lidar before fusing their data.
:::

## Actuators

Electric motors turn the joints of the arm while a gear train trades speed for torque.

` + "```python" + `
def spin(motor):
    motor.set_velocity(3.0)  # radians per second
` + "```" + `

#### Brakes

A holding brake keeps the joint still when the power to the motor is cut off.

## Planning

The planner searches a graph of reachable poses and returns the cheapest collision free path.
`)},
		"docs/other.md": {Data: []byte("# Other\n\n## Elsewhere\n\nQuaternions avoid the gimbal lock that plagues Euler angles in three dimensions.\n")},
	}
	site, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return site
}

func auditContent(t *testing.T, site *Site, policy ContentPolicy, chunks ...retrieval.Chunk) *Report {
	t.Helper()
	rep, err := Audit(context.Background(), sliceWalker(chunks), AuditOptions{
		URLs: site.URLBuilder(""), Checker: NewLocalChecker(site), Site: site, WrongSection: policy,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestContentCheck(t *testing.T) {
	site := contentSite(t)
	sensors := "## Sensors\n\nA lidar sweeps a laser beam across the room and measures\nthe time each pulse takes to come back to the receiver."
	tests := []struct {
		name, section, text string
		verdict             string // "" for ok
		foundAnchor         string
	}{
		{"right section, markdown stripped", "Sensors", sensors, "", ""},
		{"right section, raw markdown with link and admonition", "Sensors",
			"## Sensors\n\nA **lidar** sweeps a [laser beam](https://example.org/lidar) across the room and measures\n\n:::tip Calibrate first\nAlways calibrate the extrinsic transform between camera and lidar before fusing their data.\n:::", "", ""},
		// The textbook's chunker assigns the next heading before it emits
		// the chunk: the text is the Sensors section's, the anchor Actuators'.
		{"heading assigned before the chunk is emitted", "Actuators",
			"## Actuators\n\nA lidar sweeps a laser beam across the room and measures the time each pulse takes to come back to the receiver. Always calibrate the extrinsic transform between camera and lidar before fusing their data.",
			VerdictWrongSection, "sensors"},
		{"code block text found in its section", "Planning",
			"## Planning\n\n```python\ndef spin(motor):\n    motor.set_velocity(3.0)  # radians per second\n```", VerdictWrongSection, "actuators"},
		{"H4 text is in its parent's section", "Actuators",
			"## Actuators\n\n#### Brakes\n\nA holding brake keeps the joint still when the power to the motor is cut off.", "", ""},
		{"chunk spanning two sections, cited at its start", "Sensors",
			"Always calibrate the extrinsic transform between camera and lidar before fusing their data. Electric motors turn the joints of the arm while a gear train trades speed for torque.", "", ""},
		{"chunk spanning two sections, cited at its end", "Actuators",
			"fusing their data. Electric motors turn the joints of the arm while a gear train trades speed for torque. def spin motor motor set velocity 3 0 radians per second", "", ""},
		{"text from the page's intro cited at a section", "Planning",
			"# Robots\n\nRobots sense the world through cameras and lidar before they plan any motion at all.", VerdictWrongSection, ""},
		{"text on another page", "Planning",
			"Quaternions avoid the gimbal lock that plagues Euler angles in three dimensions.", VerdictWrongSection, "elsewhere"},
		{"text nowhere (edited page)", "Sensors",
			"## Sensors\n\nSonar rangefinders emit ultrasonic chirps and listen for their echoes off nearby walls.", VerdictTextNotFound, ""},
		{"too short to judge", "Planning", "## Planning\n\nA lidar sweeps.", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := retrieval.Chunk{ID: "c1", DocPath: "docs/robots.md", Section: tc.section, Text: tc.text}
			rep := auditContent(t, site, "", c)
			if rep.Content == nil {
				t.Fatal("no content report")
			}
			if tc.verdict == "" {
				if len(rep.Content.Findings) != 0 || !rep.Summary.Passed {
					t.Fatalf("want ok, got %+v (passed %v)", rep.Content.Findings, rep.Summary.Passed)
				}
				return
			}
			if len(rep.Content.Findings) != 1 {
				t.Fatalf("want one %s finding, got %+v", tc.verdict, rep.Content)
			}
			f := rep.Content.Findings[0]
			if f.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%+v)", f.Verdict, tc.verdict, f)
			}
			if rep.Summary.Passed {
				t.Error("a content finding must fail the audit under the default policy")
			}
			if tc.verdict == VerdictWrongSection {
				if f.FoundAnchor != tc.foundAnchor {
					t.Errorf("found anchor %q, want %q (%+v)", f.FoundAnchor, tc.foundAnchor, f)
				}
				if !strings.HasSuffix(f.FoundURL, "#"+tc.foundAnchor) && tc.foundAnchor != "" {
					t.Errorf("found URL %s does not end in #%s", f.FoundURL, tc.foundAnchor)
				}
				if f.CitedShare != 0 {
					t.Errorf("cited share %v, want 0", f.CitedShare)
				}
				if rep.Summary.WrongSection != 1 || rep.Summary.TextNotFound != 0 {
					t.Errorf("summary %+v", rep.Summary)
				}
			} else if rep.Summary.TextNotFound != 1 || rep.Summary.WrongSection != 0 || f.FoundURL != "" {
				t.Errorf("summary %+v, finding %+v", rep.Summary, f)
			}
		})
	}
}

func TestContentPolicy(t *testing.T) {
	site := contentSite(t)
	wrong := retrieval.Chunk{ID: "w", DocPath: "docs/robots.md", Section: "Planning",
		Text: "Electric motors turn the joints of the arm while a gear train trades speed for torque."}
	rep := auditContent(t, site, ContentWarn, wrong)
	if !rep.Summary.Passed || rep.Summary.WrongSection != 1 || rep.Content.Policy != ContentWarn {
		t.Errorf("warn: passed %v, summary %+v", rep.Summary.Passed, rep.Summary)
	}
	rep = auditContent(t, site, ContentOff, wrong)
	if !rep.Summary.Passed || rep.Content != nil || rep.Summary.WrongSection != 0 {
		t.Errorf("off: passed %v, content %+v", rep.Summary.Passed, rep.Content)
	}
	for in, want := range map[string]ContentPolicy{"": ContentFail, "WARN": ContentWarn, "off": ContentOff} {
		if got, err := ParseContentPolicy(in); err != nil || got != want {
			t.Errorf("ParseContentPolicy(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseContentPolicy("maybe"); err == nil || !strings.Contains(err.Error(), "fail, warn or off") {
		t.Errorf("bad policy: %v", err)
	}
}

// A missing anchor is the URL check's finding, not the content check's.
func TestContentCheckSkipsBrokenURLs(t *testing.T) {
	site := contentSite(t)
	c := retrieval.Chunk{ID: "x", DocPath: "docs/robots.md", Section: "Gone",
		Text: "Electric motors turn the joints of the arm while a gear train trades speed for torque."}
	rep := auditContent(t, site, "", c)
	if rep.Content.Checked != 0 || len(rep.Content.Findings) != 0 || rep.Summary.AnchorMissing != 1 {
		t.Errorf("content %+v, summary %+v", rep.Content, rep.Summary)
	}
}

// TestContentCheckAgreesWithChunker chunks every real-build fixture site
// (every heading form, admonitions, tabs, code, MDX) as the local backend
// does and requires the content check to find every chunk's text in the
// section its citation names.
func TestContentCheckAgreesWithChunker(t *testing.T) {
	for _, name := range oracle.Sites {
		t.Run(name, func(t *testing.T) {
			_, site := loadFixture(t, name)
			fsys := withSectionText(t, filepath.Join(oracle.SitesDir(), name), site)
			_, corpus, err := local.Build(context.Background(), fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: site.Config.DocsPath}})
			if err != nil {
				t.Fatal(err)
			}
			chunks, _, err := local.ChunkDocs(t.Context(), fsys, local.ChunkOptions{DocsDir: site.Config.DocsPath})
			if err != nil {
				t.Fatal(err)
			}
			site, err = LoadSite(fsys)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Audit(context.Background(), sliceWalker(chunks), AuditOptions{URLs: corpus.URLBuilder(docusaurus.SlugGitHub), Checker: NewLocalChecker(site), Site: site})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Content.Checked < len(chunks)/2 {
				t.Errorf("only %d of %d chunks checked", rep.Content.Checked, len(chunks))
			}
			for _, f := range rep.Content.Findings {
				t.Errorf("%s %q cited %s: %s (found in %s#%s, %.2f found)", f.ID, f.Section, f.URL, f.Verdict, f.FoundSource, f.FoundAnchor, f.FoundShare)
			}
		})
	}
}
