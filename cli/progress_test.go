package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestBarNotATerminal(t *testing.T) {
	var quiet, plain bytes.Buffer
	for _, b := range []*bar{newBar(&quiet, false), newBar(&plain, true)} {
		b.update("embedding chunks", 0, 10)
		b.update("embedding chunks", 5, 10)
		b.update("embedding chunks", 10, 10)
		b.update("saving", 0, 1)
		b.clear()
	}
	if quiet.Len() != 0 {
		t.Errorf("a bar off a terminal wrote %q", quiet.String())
	}
	if got := plain.String(); got != "embedding chunks: 10/10\n" {
		t.Errorf("plain bar wrote %q, want one line per finished phase", got)
	}
}

func TestBarOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := &bar{w: &buf, tty: true}
	b.update("embedding \x1b[31mchunks", 0, 4)
	b.update("embedding \x1b[31mchunks", 4, 4)
	b.update("saving", 0, 1)
	b.clear()
	out := buf.String()
	for _, want := range []string{"[" + strings.Repeat(".", barWidth) + "] 0/4", "[" + strings.Repeat("#", barWidth) + "] 4/4", "  saving…"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("a phase's control sequence reached the terminal: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("clear did not erase the line: %q", out)
	}
}
