package jsonsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeEscapesC1AndBidi(t *testing.T) {
	in := map[string]string{
		"text\u202e": "a\u009b31mb\u0085c\u202ed\u2066e\u2069f\u200eg\u200fh\u061ci\u0080j\u009fk",
		"plain":      "héllo — 日本 <b>&",
		"c0":         "x\x1b[2Jy\u2028z",
		"del\x7f":    "a\x7fb",
		"last\u202a": "\u202c",
	}
	var b bytes.Buffer
	if err := Encode(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, r := range out {
		if Unsafe(r) || r == 0x1b {
			t.Fatalf("raw %U in output:\n%s", r, out)
		}
	}
	for _, want := range []string{`\u009b`, `\u202e`, `\u0085`, `\u061c`, `a\u007fb`, `"héllo — 日本 <b>&"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, out)
	}
	for k, v := range in {
		if back[k] != v {
			t.Errorf("%q decodes to %q, want %q", k, back[k], v)
		}
	}
}

func TestEscapeLeavesCleanInputAlone(t *testing.T) {
	b := []byte(`{"a": "héllo"}`)
	if got := Escape(b); &got[0] != &b[0] {
		t.Error("clean input was copied")
	}
	if !utf8.Valid(Escape([]byte("\"\u00a0\""))) {
		t.Error("invalid UTF-8")
	}
	if got := string(Escape([]byte("\"\u00a0\u009f\""))); got != "\"\u00a0\\u009f\"" {
		t.Errorf("got %q", got)
	}
}
