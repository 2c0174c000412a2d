package ui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// twinRetriever returns two hits of one page whose citations differ only
// by the anchor's "-1" (a heading used twice), with the demo's long URLs.
type twinRetriever struct{}

const twinURL = "https://physical-ai.example.org/textbook/docs/module-1-ros2/nodes-topics-services#example"

func (twinRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Params: retrieval.Params{TopK: q.TopK, Dedup: true}}
	for i, id := range []string{"", "example-1"} {
		c := retrieval.Chunk{ID: "c" + id, Text: "## Example\n\nText " + id, Title: "Nodes, Topics, Services and Actions", Section: "Example",
			DocPath: "docs/module-1-ros2/nodes-topics-services.md", HeadingID: id}
		url := twinURL
		if id != "" {
			url = twinURL + "-1"
		}
		res.Hits = append(res.Hits, retrieval.Hit{Rank: i + 1, Score: 0.5 - float64(i)/10, Chunk: c, Citation: retrieval.Citation{URL: url, Source: "built"}})
	}
	res.Grounded = retrieval.Ground(res.Hits)
	return res, nil
}

var boxEdge = regexp.MustCompile(`[│╭╮╰╯─┃┏┓┗┛━]`)

// paneLines is a pane's view as plain text lines without the border.
func paneLines(view string) []string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(boxEdge.ReplaceAllString(l, ""))
	}
	return lines
}

// TestResultsKeepTheAnchor: at every size the list shows the end of each
// citation, so the two hits that differ only by "-1" look different.
func TestResultsKeepTheAnchor(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		opts, _ := testOptions(&fakeRetriever{})
		opts.Retriever = twinRetriever{}
		m := sized(t, opts, sz[0], sz[1])
		m = ask(t, m, "example")
		var urls []string
		for _, l := range paneLines(m.results.View()) {
			if strings.Contains(l, "#example") {
				urls = append(urls, l)
			}
		}
		if len(urls) != 2 {
			t.Fatalf("%dx%d: rows with the anchor = %q\n%s", sz[0], sz[1], urls, ansi.Strip(m.results.View()))
		}
		if !strings.HasSuffix(urls[0], "#example") || !strings.HasSuffix(urls[1], "#example-1") {
			t.Errorf("%dx%d: anchors cut: %q", sz[0], sz[1], urls)
		}
	}
}

// TestDetailWrapsTheWholeURL: the detail pane never cuts the citation,
// and says where its anchor comes from instead of "heading id missing".
func TestDetailWrapsTheWholeURL(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		for i, want := range []string{twinURL, twinURL + "-1"} {
			opts, _ := testOptions(&fakeRetriever{})
			opts.Retriever = twinRetriever{}
			m := sized(t, opts, sz[0], sz[1])
			m = ask(t, m, "example")
			m.detail.SetSize(m.detail.Width, 200) // room for every row
			if i == 1 {
				m.detail.SetItem(m.results.Items[1])
			}
			meta := ansi.Strip(m.detail.Metadata())
			var url strings.Builder
			on := false
			anchor := ""
			for _, l := range strings.Split(meta, "\n") {
				k, v := strings.TrimSpace(l[:min(12, len(l))]), strings.TrimSpace(l[min(12, len(l)):])
				switch {
				case k == "citation":
					on = true
					url.WriteString(v)
				case on && k == "":
					url.WriteString(v)
				default:
					on = false
				}
				if k == "anchor" {
					anchor = v
				}
				if k == "heading id" && v == "missing" {
					t.Errorf("%dx%d: %q", sz[0], sz[1], l)
				}
			}
			if url.String() != want {
				t.Errorf("%dx%d: citation rows join to %q, want %q\n%s", sz[0], sz[1], url.String(), want, meta)
			}
			wantAnchor := "#example (from the heading text)"
			if i == 1 {
				wantAnchor = "#example-1 (the heading's id)"
			}
			if anchor != wantAnchor {
				t.Errorf("%dx%d: anchor row %q, want %q", sz[0], sz[1], anchor, wantAnchor)
			}
		}
	}
}

// TestDetailWrapsTheRightLinkAsAURL: the suggested link of a broken
// citation wraps at "/" like the citation, whole, not at its host's "-".
func TestDetailWrapsTheRightLinkAsAURL(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	suggest := "https://physical-ai.example.org/textbook/docs/module-1-ros2/what-is-ros2#quality-of-service"
	opts.LinkStatus = func(_ context.Context, u string) (common.LinkStatus, error) {
		return common.LinkStatus{State: common.LinkAnchorMissing, Detail: "no heading with the id dds", Suggest: suggest}, nil
	}
	m := sized(t, opts, 80, 24)
	m = ask(t, m, "nodes")
	var got []string
	on := false
	for _, l := range strings.Split(ansi.Strip(m.detail.Metadata()), "\n") {
		k, v := strings.TrimSpace(l[:min(12, len(l))]), strings.TrimSpace(l[min(12, len(l)):])
		switch {
		case k == "right link":
			on = true
			got = append(got, v)
		case on && k == "":
			got = append(got, v)
		default:
			on = false
		}
	}
	if strings.Join(got, "") != suggest || len(got) < 2 || !strings.HasSuffix(got[0], "/") {
		t.Fatalf("right link rows = %q", got)
	}
}
