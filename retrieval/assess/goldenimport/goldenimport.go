// Package goldenimport turns real questions into a golden set: it reads
// them from the shapes chatbot logs come in (JSONL with a field, CSV with
// a column, or plain lines), drops empty lines and exact and near
// duplicates, and writes the rest as unlabelled cases (no expectation)
// that ragscope eval loads. It imports no UI and does no network I/O.
package goldenimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"ragscope/internal/readlimit"
	"ragscope/internal/srcpos"
)

// Format is the shape of a question file.
type Format string

// Formats of a question file.
const (
	// FormatAuto picks the format from the file's extension, else its
	// content (see Detect).
	FormatAuto Format = ""
	// FormatJSONL is one JSON object a line; Options.Field names the
	// question.
	FormatJSONL Format = "jsonl"
	// FormatCSV is comma-separated values (tab-separated for a .tsv
	// file) with a header row; Options.Column names the question column.
	FormatCSV Format = "csv"
	// FormatLines is one question a line.
	FormatLines Format = "lines"
)

// String returns the format's name.
func (f Format) String() string {
	if f == FormatAuto {
		return "auto"
	}
	return string(f)
}

// ParseFormat reads a --format value: jsonl, csv, lines or auto ("" too).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "auto", FormatAuto:
		return FormatAuto, nil
	case FormatJSONL, FormatCSV, FormatLines:
		return f, nil
	case "ndjson", "json":
		return FormatJSONL, nil
	case "txt", "text":
		return FormatLines, nil
	}
	return FormatAuto, fmt.Errorf("unknown format %q: use jsonl, csv or lines", s)
}

// Default field and column names.
const (
	DefaultField  = "question"
	DefaultColumn = "question"
)

// Options say how to read a question file.
type Options struct {
	// Format is the file's shape (FormatAuto: Detect).
	Format Format
	// Field is the JSONL field holding the question; a dotted path
	// ("request.question") reaches into nested objects. Default "question".
	Field string
	// Column is the CSV header naming the question column (matched
	// without regard to case). Default "question".
	Column string
	// Name names the input in errors and picks the format by extension
	// ("-" or "" for standard input).
	Name string
}

// ErrInput is matched (errors.Is) by every error about the content of a
// question file.
var ErrInput = errors.New("bad question file")

// InputError is a question file that cannot be read as asked: where (the
// input's name, a line) and what to fix.
type InputError struct {
	Name string
	Line int
	Msg  string
}

// Error formats the error as "name:line: message".
func (e *InputError) Error() string { return srcpos.Prefix(e.Name, e.Line) + e.Msg }

// Is matches ErrInput.
func (e *InputError) Is(target error) bool { return target == ErrInput }

// Question is one question read, with the line it starts on.
type Question struct {
	Text string
	Line int
}

// Stats count what an import read and dropped.
type Stats struct {
	// Format is the format the input was read as.
	Format Format
	// Records is the number of lines (JSONL, lines) or data rows (CSV) read.
	Records int
	// Empty counts blank lines and records whose question is blank.
	Empty int
	// NoField counts JSONL objects without the field (or with null) and
	// CSV rows too short to have the column.
	NoField int
	// Exact counts questions identical to an earlier one (after trimming
	// and collapsing white space).
	Exact int
	// Near counts near duplicates of an earlier question (see Dedup).
	Near int
	// Kept is the number of questions written.
	Kept int
}

// Detect picks the format of the input called name whose first bytes are
// head: by extension (.jsonl/.ndjson/.json JSONL, .csv/.tsv CSV, .txt
// lines), else JSONL when the first non-blank line starts with '{', else
// lines. CSV on standard input needs Options.Format.
func Detect(name string, head []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL
	case ".csv", ".tsv":
		return FormatCSV
	case ".txt":
		return FormatLines
	}
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
		if len(line) == 0 {
			continue
		}
		if line[0] == '{' {
			return FormatJSONL
		}
		break
	}
	return FormatLines
}

// Read reads the questions of r as opts say, blank ones counted and left
// out, in input order (duplicates kept: Dedup drops them). It stops with
// ctx's error when ctx is done.
func Read(ctx context.Context, r io.Reader, opts Options) ([]Question, Stats, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	f := opts.Format
	if f == FormatAuto {
		head, _ := br.Peek(8 << 10)
		f = Detect(opts.Name, head)
	}
	st := Stats{Format: f}
	var qs []Question
	var err error
	switch f {
	case FormatJSONL:
		qs, err = readJSONL(ctx, br, opts, &st)
	case FormatCSV:
		qs, err = readCSV(ctx, br, opts, &st)
	default:
		st.Format = FormatLines
		qs, err = readLines(ctx, br, opts, &st)
	}
	if err != nil {
		return nil, st, err
	}
	return qs, st, nil
}

// clean trims a question and collapses its white space (a log's line
// breaks included) to single spaces.
func clean(s string) string {
	if tidy(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// tidy reports an ASCII s that clean leaves as it is: no space at either
// end, no white space but single spaces.
func tidy(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := range len(s) {
		c := s[i]
		if c >= 0x80 || (c < ' ' && c != 0) || (c == ' ' && s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// eachLine calls fn with every line of r (its 1-based number, without the
// line break and a leading byte order mark), stopping at fn's error or
// when ctx is done.
func eachLine(ctx context.Context, r io.Reader, name string, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), readlimit.QuestionRecord)
	n := 0
	for sc.Scan() {
		n++
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("read %s: %w", displayName(name), err)
			}
		}
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &InputError{Name: name, Line: n + 1, Msg: fmt.Sprintf("a line longer than %s, the most ragscope reads of one", readlimit.Size(readlimit.QuestionRecord))}
		}
		return fmt.Errorf("read %s: %w", displayName(name), err)
	}
	return nil
}

func displayName(name string) string {
	if name == "" || name == "-" {
		return "standard input"
	}
	return name
}

func readLines(ctx context.Context, r io.Reader, opts Options, st *Stats) ([]Question, error) {
	var qs []Question
	err := eachLine(ctx, r, opts.Name, func(n int, line []byte) error {
		st.Records++
		q := clean(string(line))
		if q == "" {
			st.Empty++
			return nil
		}
		qs = append(qs, Question{Text: q, Line: n})
		return nil
	})
	return qs, err
}

func readJSONL(ctx context.Context, r io.Reader, opts Options, st *Stats) ([]Question, error) {
	field := opts.Field
	if field == "" {
		field = DefaultField
	}
	var qs []Question
	var firstKeys []string
	err := eachLine(ctx, r, opts.Name, func(n int, line []byte) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			st.Empty++
			st.Records++
			return nil
		}
		st.Records++
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil || dec.More() {
			msg := "not a JSON object"
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				msg = fmt.Sprintf("not valid JSON (%v at column %d)", se, se.Offset)
			case errors.As(err, &te):
				msg = fmt.Sprintf("a JSON %s, not an object: each line of a JSONL file is one object", te.Value)
			case err == nil:
				msg = "more than one JSON value on the line: each line of a JSONL file is one object"
			case err != nil:
				msg = "not valid JSON: " + err.Error()
			}
			return &InputError{Name: opts.Name, Line: n, Msg: msg}
		}
		if firstKeys == nil {
			firstKeys = keys(obj)
		}
		v, ok := lookup(obj, field)
		if !ok || v == nil {
			st.NoField++
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return &InputError{Name: opts.Name, Line: n, Msg: fmt.Sprintf("field %q is %s, not a string (--field names the question's field)", field, jsonKind(v))}
		}
		q := clean(s)
		if q == "" {
			st.Empty++
			return nil
		}
		qs = append(qs, Question{Text: q, Line: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 && st.NoField > 0 {
		return nil, &InputError{Name: opts.Name, Msg: fmt.Sprintf("no line has the field %q; the first has: %s (give --field NAME, a dotted path for a nested one)", field, strings.Join(firstKeys, ", "))}
	}
	return qs, nil
}

// lookup finds field in obj: the key itself, else a dotted path through
// nested objects.
func lookup(obj map[string]any, field string) (any, bool) {
	if v, ok := obj[field]; ok {
		return v, true
	}
	parts := strings.Split(field, ".")
	if len(parts) < 2 {
		return nil, false
	}
	var cur any = obj
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, fmt.Sprintf("%q", k))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"no fields"}
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func readCSV(ctx context.Context, r io.Reader, opts Options, st *Stats) ([]Question, error) {
	column := opts.Column
	if column == "" {
		column = DefaultColumn
	}
	cr := csv.NewReader(r)
	if strings.EqualFold(filepath.Ext(opts.Name), ".tsv") {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &InputError{Name: opts.Name, Line: pe.StartLine, Msg: "not valid CSV: " + pe.Err.Error()}
		}
		return fmt.Errorf("read %s: %w", displayName(opts.Name), err)
	}
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &InputError{Name: opts.Name, Msg: "the file is empty: a CSV file needs a header row naming its columns"}
	}
	if err != nil {
		return nil, csvErr(err)
	}
	head = slices.Clone(head)
	if len(head) > 0 {
		head[0] = strings.TrimPrefix(head[0], "\ufeff")
	}
	col := -1
	for i, h := range head {
		if strings.EqualFold(strings.TrimSpace(h), column) {
			col = i
			break
		}
	}
	if col < 0 {
		names := make([]string, len(head))
		for i, h := range head {
			names[i] = fmt.Sprintf("%q", h)
		}
		return nil, &InputError{Name: opts.Name, Line: 1, Msg: fmt.Sprintf("the header has no column %q; it has: %s (give --column NAME)", column, strings.Join(names, ", "))}
	}
	var qs []Question
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		st.Records++
		if st.Records%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("read %s: %w", displayName(opts.Name), err)
			}
		}
		line, _ := cr.FieldPos(0)
		if col >= len(rec) {
			st.NoField++
			continue
		}
		q := clean(rec[col])
		if q == "" {
			st.Empty++
			continue
		}
		qs = append(qs, Question{Text: q, Line: line})
	}
	return qs, nil
}
