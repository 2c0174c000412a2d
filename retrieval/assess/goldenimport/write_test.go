package goldenimport

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ragscope/internal/yamlsafe"
	"ragscope/retrieval/assess/eval"
)

// oddQuestions are questions YAML reads as something else when written
// plain, or that need escaping: indicators, colons, comments, keywords,
// numbers, line breaks, controls, bidi controls, tabs, quotes, non-ASCII.
var oddQuestions = []string{
	"How do I start?", "a: b", "a:b works", "ends with a colon:", "a # comment", "a#b no comment",
	"- list item", "-dash first", "? key", "?question first", ": colon first", "#hash first",
	"[flow] first", "{map} first", "&anchor x", "*alias x", "!tag x", "|literal x", ">folded x",
	"'single quoted'", `"double quoted"`, "%directive x", "@at x", "`backtick x", "--- three dashes",
	"... three dots", "true", "True", "yes", "no", "on", "off", "y", "n", "null", "~", "Null x",
	"123", "1e5", "0x1F", "1_000", "12:30:00", "2026-11-28", "2026-11-28 10:00:00", ".inf", ".nan",
	"-.inf", "+1", "line one\nline two", "trailing break\n",
	"a\n\nb with an empty line", "tab\there", "bell\a and ESC\x1b[31m", "C1 \u0085 next line",
	"bidi \u202eevil\u202c text", "isolate \u2066x\u2069", "zero\u200bwidth", "héllo wörld", "日本語の質問",
	"emoji 🤖 robot", "back\\slash", "a, b, c", "x [y] {z}", "say \"hi\" now", "it's mine",
	"a :b", "a: ", "question?", "What is ROS 2?", "a - b", "a -b", "x #y", "x#", "a\r\nb", "\u00a0nbsp",
	"a\u2028b", "del \x7f char", "trailing space ", " leading space", "yes please", "on the robot",
}

// randomQuestion builds a question from pieces YAML treats specially,
// its white space collapsed as Read collapses it.
func randomQuestion(r *rand.Rand) string {
	pieces := []string{"a", "Z", "9", " ", ": ", ":", "#", " #", "-", "?", "'", `"`, "\n", "\t", "\x1b",
		"\u202e", "é", "true", "no", "null", "1", ".", "[", "{", ",", "&", "*", "!", "|", ">", "%", "@", "~", "\\"}
	var b strings.Builder
	for range 1 + r.IntN(8) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	if q := strings.Join(strings.Fields(b.String()), " "); q != "" {
		return q
	}
	return "?"
}

// encodeWhole is the set as the YAML encoder writes it whole (through
// yamlsafe), the writer's reference.
func encodeWhole(t *testing.T, h Header, qs []Question) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSet(&b, h, nil); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSuffix(b.String(), "cases: []\n")
	f := file{}
	for i, q := range qs {
		f.Cases = append(f.Cases, fileCase{ID: ID(i, len(qs)), Question: q.Text})
	}
	data, err := yamlsafe.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(head), data...)
}

// TestEncodeSetIsTheYAMLEncoders: the writer's bytes are what the YAML
// encoder (with yamlsafe's escaping) writes for the whole set, for odd
// and random questions, and eval loads every question back as it was.
func TestEncodeSetIsTheYAMLEncoders(t *testing.T) {
	h := Header{Source: "log.txt", Date: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), Stats: Stats{Records: 3, Kept: 3}}
	r := rand.New(rand.NewPCG(4, 2))
	var qs []Question
	for i, s := range oddQuestions {
		qs = append(qs, Question{Text: s, Line: i + 1})
	}
	for i := range 5000 {
		qs = append(qs, Question{Text: randomQuestion(r), Line: len(oddQuestions) + i + 1})
	}
	for _, set := range [][]Question{qs[:1], qs[:len(oddQuestions)], qs} {
		got, err := EncodeSet(h, set)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodeWhole(t, h, set); !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("line %d: got %q, the YAML encoder writes %q", i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("got %d lines, the YAML encoder writes %d", len(gl), len(wl))
		}
		loaded, err := eval.Parse(got, "golden.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.Cases) != len(set) {
			t.Fatalf("%d cases loaded, %d written", len(loaded.Cases), len(set))
		}
		for i, c := range loaded.Cases {
			if c.Question != set[i].Text || c.ID != ID(i, len(set)) {
				t.Fatalf("case %d loaded as %s %q, written %s %q", i, c.ID, c.Question, ID(i, len(set)), set[i].Text)
			}
		}
	}
}

// TestPlainScalarOnlyWhatTheEncoderWritesPlain: a question written as it
// is (the fast path) is one the YAML encoder writes plain too.
func TestPlainScalarOnlyWhatTheEncoderWritesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	plain := 0
	for i := range 20000 {
		s := randomQuestion(r)
		if i < len(oddQuestions) {
			s = oddQuestions[i]
		}
		if !plainScalar(s) {
			continue
		}
		plain++
		data, err := yamlsafe.Encode(map[string]string{"question": s})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(data), "question: "+s+"\n"; got != want {
			t.Fatalf("plainScalar(%q) but the encoder writes %q", s, got)
		}
	}
	if plain < 100 {
		t.Fatalf("only %d plain questions: the test checks nothing", plain)
	}
}

// TestSelfCheckCatchesAnUnloadableSet: the check EncodeSet runs before
// returning refuses a case eval cannot parse or loads back different.
func TestSelfCheckCatchesAnUnloadableSet(t *testing.T) {
	for _, c := range []struct{ encoded, id, question string }{
		{"  - id: q-001\n    question: a: b\n", "q-001", "a: b"},          // not YAML
		{"  - id: q-001\n    question: yes\n", "q-001", "yes"},            // fine YAML, yet...
		{"  - id: q-001\n    question: x # y\n", "q-001", "x # y"},        // a comment
		{"  - id: q-001\n    question: \u202ex\n", "q-002", "\u202ex"},    // another id
		{"  - id: q-001\n  question: x\n", "q-001", "x"},                  // bad indentation
		{"  - id: q-001\n    question: x\n  - id: q-002\n", "q-001", "x"}, // an extra case
	} {
		chk := checker{header: []byte("# header\n")}
		err := chk.add([]byte(c.encoded), c.id, c.question)
		if err == nil {
			err = chk.flush()
		}
		if c.question == "yes" {
			// YAML 1.2 reads an unquoted yes as the string "yes": the
			// check accepts what loads back the same.
			if err != nil {
				t.Errorf("%q: %v", c.encoded, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnloadable) {
			t.Errorf("%q: got %v, want ErrUnloadable", c.encoded, err)
		}
	}
}
