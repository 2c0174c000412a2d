package ui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// hostileRetriever returns a chunk whose every field carries terminal
// escape sequences, as an untrusted collection could.
type hostileRetriever struct{}

const evil = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31m\u009b1m\x9b2m\u202e"

func (hostileRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	c := retrieval.Chunk{
		ID: "x" + evil, Text: "# Title" + evil + "\n\nBody " + evil + " text.\n\n```\ncode" + evil + "\n```\n",
		Title: "T" + evil, Section: "S" + evil, DocPath: "docs/a" + evil + ".md", Module: "m" + evil,
		Chapter: "c" + evil, Tags: []string{"t" + evil}, ContentType: "k" + evil, ContentHash: "h" + evil,
		Breadcrumb: []string{"b" + evil}, Extra: map[string]string{"note": "n" + evil},
		URL: "https://x.org/a" + evil,
	}
	h := retrieval.Hit{Rank: 1, Score: 0.5, Chunk: c, Citation: retrieval.Citation{URL: c.URL, Source: "payload", Title: c.Title, Section: c.Section}}
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Hits: []retrieval.Hit{h}, Dropped: []retrieval.DroppedHit{{Hit: h, Reason: retrieval.ReasonDuplicate, DuplicateOf: 1}},
		Params: retrieval.Params{TopK: q.TopK, Dedup: true}}
	res.Grounded = retrieval.Ground(res.Hits)
	return res, nil
}

// sgr matches a Select Graphic Rendition sequence (colours, bold).
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

func TestHostilePayloadNeverReachesTheScreen(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Retriever = hostileRetriever{}
	opts.LinkStatus = func(context.Context, string) (common.LinkStatus, error) {
		return common.LinkStatus{State: common.LinkAnchorMissing, Detail: "d" + evil, Suggest: "https://x.org/b" + evil}, nil
	}
	m := sized(t, opts, 160, 50)
	m = ask(t, m, "anything")
	views := map[string]string{"results+detail": m.View().Content}
	m = feed(t, m, keyRunes("x"))
	views["left out"] = m.View().Content
	m = feed(t, m, keyRunes("c"))
	views["context"] = m.View().Content
	for name, v := range views {
		if strings.Contains(v, "\x1b[31m") {
			t.Errorf("%s: the payload's colour reached the screen:\n%q", name, v)
		}
		// The explorer's own styling is SGR sequences only; anything else
		// came from the payload.
		v = sgr.ReplaceAllString(v, "")
		// A raw C1 byte (the payload's \x9b) is invalid UTF-8; the byte
		// itself is legitimate inside a box character such as "┛".
		if strings.ContainsAny(v, "\x1b\x07\u009b\u202e") || !utf8.ValidString(v) {
			t.Errorf("%s: a control sequence reached the screen:\n%q", name, v)
		}
		if !strings.Contains(v, "T") {
			t.Errorf("%s: nothing drawn", name)
		}
	}
}
