package goldenimport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"ragscope/internal/yamlsafe"
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

// IDs returns the case ids of n questions: q-001, q-002, … (more digits
// when n needs them), unique by construction.
func IDs(n int) []string {
	width := max(3, len(fmt.Sprint(n)))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("q-%0*d", width, i+1)
	}
	return out
}

type fileCase struct {
	ID       string `yaml:"id"`
	Question string `yaml:"question"`
}

type file struct {
	Cases []fileCase `yaml:"cases"`
}

// WriteSet writes qs as a golden set in YAML: the header as comments,
// then one case a question (id and question, no expectation), which eval
// reports as unlabelled.
func WriteSet(w io.Writer, h Header, qs []Question) error {
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
	f := file{Cases: make([]fileCase, len(qs))}
	for i, id := range IDs(len(qs)) {
		f.Cases[i] = fileCase{ID: id, Question: qs[i].Text}
	}
	data, err := yamlsafe.Encode(f)
	if err != nil {
		return fmt.Errorf("encode golden set: %w", err)
	}
	b.Write(data)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write golden set: %w", err)
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
