package goldenimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"ragscope/internal/yamlsafe"
	"ragscope/retrieval/assess/eval"
)

// Header is what the comments at the top of a written set record.
type Header struct {
	// Source names the file read ("standard input" for "-").
	Source string
	// Field or Column is where the questions came from (JSONL, CSV).
	Field, Column string
	Stats         Stats
	// Date is the day of the import.
	Date time.Time
}

// ID is the case id of question i (from 0) of n: q-001, q-002, … (more
// digits when n needs them), unique by construction.
func ID(i, n int) string {
	return string(appendID(nil, i, idWidth(n)))
}

func idWidth(n int) int { return max(3, len(strconv.Itoa(n))) }

// appendID appends "q-" and i+1 zero-padded to width digits.
func appendID(b []byte, i, width int) []byte {
	b = append(b, "q-"...)
	num := strconv.Itoa(i + 1)
	for range width - len(num) {
		b = append(b, '0')
	}
	return append(b, num...)
}

type fileCase struct {
	ID       string `yaml:"id"`
	Question string `yaml:"question"`
}

type file struct {
	Cases []fileCase `yaml:"cases"`
}

// ErrUnloadable marks a written set that eval could not load back as
// written: a bug of the writer, never of the input.
var ErrUnloadable = errors.New("the set written does not load back as written")

// checkedFirst is how many cases at the top of a set the self-check
// loads back whatever they hold (besides every case not written plain).
const checkedFirst = 256

// checkBatch is how many cases the self-check loads back at a time, so
// that it never holds the parse of a whole large set.
const checkBatch = 4096

// WriteSet writes qs as a golden set in YAML (see EncodeSet).
func WriteSet(w io.Writer, h Header, qs []Question) error {
	data, err := EncodeSet(h, qs)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write golden set: %w", err)
	}
	return nil
}

// EncodeSet returns qs as a golden set in YAML: the header as comments,
// then one case a question (id and question, no expectation), which eval
// reports as unlabelled. Strings are escaped as yamlsafe.Encode escapes
// them, and the bytes are what yamlsafe.Encode gives for the whole set.
//
// A question of plain words (see plainScalar) is written as it is; any
// other goes through the YAML encoder. Before returning, EncodeSet loads
// back with eval.Parse, in batches, the header with the first cases, the
// last case and every case not written plain, and checks that each comes
// back with its id and question: a set eval cannot load is an error
// wrapping ErrUnloadable, never returned.
func EncodeSet(h Header, qs []Question) ([]byte, error) {
	var b bytes.Buffer
	from := h.Source
	switch {
	case h.Stats.Format == FormatJSONL:
		from += fmt.Sprintf(" (JSONL, field %q)", h.Field)
	case h.Stats.Format == FormatCSV:
		from += fmt.Sprintf(" (CSV, column %q)", h.Column)
	default:
		from += " (one question a line)"
	}
	fmt.Fprintf(&b, "# Imported by `ragscope golden import` on %s from %s.\n", h.Date.Format("2006-01-02"), oneLine(from))
	fmt.Fprintf(&b, "# %s\n", Summary(h.Stats))
	b.WriteString("# The cases have no expectations: eval reports them as unlabelled\n")
	b.WriteString("# (the score distribution and the questions that find nothing above the\n")
	b.WriteString("# threshold). Add `expect:` to a case, or mark its hits in the explorer,\n")
	b.WriteString("# to make it a ranking case.\n")
	if len(qs) == 0 {
		b.WriteString("cases: []\n")
		return b.Bytes(), nil
	}
	size := 8
	for _, q := range qs {
		size += len(q.Text) + 48
	}
	b.Grow(size)
	header := len(b.Bytes())
	b.WriteString("cases:\n")
	width := idWidth(len(qs))
	chk := checker{header: bytes.Clone(b.Bytes()[:header])}
	var id []byte
	for i, q := range qs {
		id = appendID(id[:0], i, width)
		start := b.Len()
		plain := plainScalar(q.Text)
		if plain {
			b.WriteString("  - id: ")
			b.Write(id)
			b.WriteString("\n    question: ")
			b.WriteString(q.Text)
			b.WriteByte('\n')
		} else if err := encodeCase(&b, string(id), q.Text); err != nil {
			return nil, fmt.Errorf("encode golden set: %w", err)
		}
		if !plain || i < checkedFirst || i == len(qs)-1 {
			if err := chk.add(b.Bytes()[start:], string(id), q.Text); err != nil {
				return nil, err
			}
		}
	}
	if err := chk.flush(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeCase appends one case as the YAML encoder writes it inside the
// set's case list: yamlsafe's encoding of a set of that one case, without
// its first line ("cases:").
func encodeCase(b *bytes.Buffer, id, question string) error {
	data, err := yamlsafe.Encode(file{Cases: []fileCase{{ID: id, Question: question}}})
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(data, []byte("cases:\n"))
	if !ok {
		return fmt.Errorf("the YAML encoder wrote %.40q for a set", data)
	}
	b.Write(rest)
	return nil
}

// plainScalar reports whether the YAML encoder writes s as a plain
// scalar in a block mapping, so that it can be written as it is: printable
// ASCII, a letter first, at least one space (no word of its own that YAML
// reads as a boolean, null or number), no trailing space, no ": " or " #"
// and no colon at the end (a mapping key or a comment to YAML).
func plainScalar(s string) bool {
	if s == "" || !isLetter(s[0]) || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c > 0x7e:
			return false
		case c == ' ':
			space = true
			if s[i-1] == ':' || s[i+1] == '#' {
				return false
			}
		}
	}
	return space
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checker loads cases back with eval.Parse, a batch at a time.
type checker struct {
	header []byte
	doc    bytes.Buffer
	want   []fileCase
}

func (c *checker) add(encoded []byte, id, question string) error {
	if c.doc.Len() == 0 {
		c.doc.Write(c.header)
		c.doc.WriteString("cases:\n")
	}
	c.doc.Write(encoded)
	c.want = append(c.want, fileCase{ID: id, Question: question})
	if len(c.want) == checkBatch {
		return c.flush()
	}
	return nil
}

func (c *checker) flush() error {
	if len(c.want) == 0 {
		return nil
	}
	defer func() { c.doc.Reset(); c.want = c.want[:0] }()
	set, err := eval.Parse(c.doc.Bytes(), "golden.yaml")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnloadable, err)
	}
	if len(set.Cases) != len(c.want) {
		return fmt.Errorf("%w: %d cases loaded back, %d written", ErrUnloadable, len(set.Cases), len(c.want))
	}
	for i, got := range set.Cases {
		if w := c.want[i]; got.ID != w.ID || got.Question != w.Question {
			return fmt.Errorf("%w: case %s %q loaded back as %s %q", ErrUnloadable, w.ID, w.Question, got.ID, got.Question)
		}
	}
	return nil
}

// Summary is one line of what an import read, kept and dropped: "50
// lines read: 41 questions kept; dropped 2 empty, 4 exact duplicates, 3
// near duplicates".
func Summary(s Stats) string {
	unit := plural(s.Records, "line", "lines")
	if s.Format == FormatCSV {
		unit = plural(s.Records, "row", "rows")
	}
	out := fmt.Sprintf("%d %s read: %d %s kept", s.Records, unit, s.Kept, plural(s.Kept, "question", "questions"))
	var dropped []string
	if s.Empty > 0 {
		dropped = append(dropped, fmt.Sprintf("%d empty", s.Empty))
	}
	if s.NoField > 0 {
		what := "without the field"
		if s.Format == FormatCSV {
			what = "without the column"
		}
		dropped = append(dropped, fmt.Sprintf("%d %s", s.NoField, what))
	}
	if s.Exact > 0 {
		dropped = append(dropped, fmt.Sprintf("%d exact %s", s.Exact, plural(s.Exact, "duplicate", "duplicates")))
	}
	if s.Near > 0 {
		dropped = append(dropped, fmt.Sprintf("%d near %s", s.Near, plural(s.Near, "duplicate", "duplicates")))
	}
	if len(dropped) == 0 {
		return out + "; nothing dropped"
	}
	return out + "; dropped " + strings.Join(dropped, ", ")
}

// oneLine makes s fit a YAML comment: one line, no control characters.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Import reads r as opts say and drops duplicates: the questions to
// write, the drops and the counts. It stops with ctx's error when ctx is
// done.
func Import(ctx context.Context, r io.Reader, opts Options) ([]Question, []Drop, Stats, error) {
	qs, st, err := Read(ctx, r, opts)
	if err != nil {
		return nil, nil, st, err
	}
	kept, drops, err := Dedup(ctx, qs)
	if err != nil {
		return nil, nil, st, err
	}
	for _, d := range drops {
		switch d.Reason {
		case ReasonExact:
			st.Exact++
		case ReasonNear:
			st.Near++
		}
	}
	st.Kept = len(kept)
	return kept, drops, st, nil
}
