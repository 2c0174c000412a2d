package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// TestLongErrorReadsInFull: an error longer than the window's width wraps
// in the status line, every word of it on screen, and the panes shrink so
// the screen still fits the window; the next short status gives the rows
// back.
func TestLongErrorReadsInFull(t *testing.T) {
	long := "no Cohere API key: set COHERE_API_KEY (or CO_API_KEY) to embed questions, or choose the offline embedder with --embedder local; " +
		"the key is read from the environment, a .env file in the working directory, or ragscope.toml's [cohere] api_key_env, in that order (final-word)"
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		f := &fakeRetriever{err: fmt.Errorf("%w: %s", retrieval.ErrConfig, long)}
		opts, _ := testOptions(f)
		m := sized(t, opts, sz[0], sz[1])
		m = ask(t, m, "what is ros?")
		scr := screen(m)
		lines := strings.Split(scr, "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: screen has %d lines", sz[0], sz[1], len(lines))
		}
		flat := strings.Join(strings.Fields(scr), " ")
		if !strings.Contains(flat, strings.Join(strings.Fields(long), " ")) {
			t.Fatalf("%dx%d: the error is not on screen in full:\n%s", sz[0], sz[1], scr)
		}
		for _, l := range lines {
			if w := len([]rune(l)); w > sz[0] {
				t.Fatalf("%dx%d: a line is %d wide: %q", sz[0], sz[1], w, l)
			}
		}
		errH := m.statusH
		if errH < 2 {
			t.Fatalf("%dx%d: status height %d for a long error", sz[0], sz[1], errH)
		}
		f.mu.Lock()
		f.err = nil
		f.mu.Unlock()
		m = ask(t, m, "")
		if m.statusKind != statusOK || m.statusH >= errH || m.statusH != strings.Count(m.statusView(), "\n")+1 {
			t.Fatalf("%dx%d: after a short status: kind %v, status height %d", sz[0], sz[1], m.statusKind, m.statusH)
		}
		if n := len(strings.Split(screen(m), "\n")); n != sz[1] {
			t.Fatalf("%dx%d: screen has %d lines after the error", sz[0], sz[1], n)
		}
	}
}

// TestStatusHasALimit: a status of any length never takes more than a
// quarter of the window.
func TestStatusHasALimit(t *testing.T) {
	f := &fakeRetriever{err: errors.New(strings.Repeat("word ", 2000))}
	opts, _ := testOptions(f)
	m := sized(t, opts, 80, 24)
	m = ask(t, m, "x")
	if m.statusH != 6 {
		t.Fatalf("status height %d, want 6", m.statusH)
	}
	if n := len(strings.Split(screen(m), "\n")); n != 24 {
		t.Fatalf("screen has %d lines", n)
	}
	if !strings.Contains(screen(m), " …\n") {
		t.Fatalf("no ellipsis:\n%s", screen(m))
	}
}
