package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"ragscope/internal/platform"
	"ragscope/retrieval"
)

// ErrCaseExists is matched (errors.Is) by a CaseExistsError.
var ErrCaseExists = errors.New("a case with this question exists")

// CaseExistsError is a save refused because the file already holds a case
// with the same question and replacing was not asked for.
type CaseExistsError struct {
	File string
	// ID and Line are the existing case's.
	ID   string
	Line int
}

// Error says which case holds the question.
func (e *CaseExistsError) Error() string {
	return fmt.Sprintf("%s:%d: case %s already asks this question", e.File, e.Line, e.ID)
}

// Is matches ErrCaseExists.
func (e *CaseExistsError) Is(target error) bool { return target == ErrCaseExists }

// SaveResult says what a save did.
type SaveResult struct {
	// ID is the saved case's id.
	ID string
	// Replaced says an existing case with the same question was replaced;
	// Created that the file did not exist (or was empty) before.
	Replaced bool
	Created  bool
	// Cases is the number of cases in the file after the save.
	Cases int
}

// newFileHeader starts a golden file the explorer creates.
const newFileHeader = "# ragscope golden set: cases saved from the explorer (S on a turn).\n" +
	"# Format: retrieval/assess/eval/README.md. Run it with: ragscope eval FILE\n" +
	"cases:\n"

// SaveCase adds c to the YAML golden set at path, or, with replace, puts
// it in place of the case that asks the same question (compared without
// case and extra spaces; that case's id and category are kept). Without
// replace, such a case is a *CaseExistsError. A missing file is created.
//
// Only the lines of the new or replaced case change: the rest of the file
// (comments, order, quoting, blank lines) stays byte for byte. The file
// is written whole to a temporary file beside it and renamed over it, so
// a reader sees the old set or the new one. A file that is not a valid
// set (YAML or set errors, a *LoadError with file:line) is never written.
func SaveCase(path string, c Case, replace bool) (SaveResult, error) {
	data, err := readSetFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return SaveResult{}, err
	}
	out, res, err := AddCase(data, path, c, replace)
	if err != nil {
		return SaveResult{}, err
	}
	if err := platform.WriteFile(context.Background(), path, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
		return SaveResult{}, fmt.Errorf("write golden set: %w", err)
	}
	return res, nil
}

// AddCase is SaveCase on the file's contents: it returns the new contents.
// name names the file in errors and picks the format (a .json file is
// refused: saving edits YAML).
func AddCase(data []byte, name string, c Case, replace bool) ([]byte, SaveResult, error) {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		return nil, SaveResult{}, &LoadError{File: name, Msg: "saving cases edits YAML; give a .yaml golden file"}
	}
	if strings.TrimSpace(c.Question) == "" {
		return nil, SaveResult{}, errors.New("save case: the question is empty")
	}
	if empty, comments := noCases(data); empty {
		return firstCase(data, name, c, comments)
	}
	root, err := yamlNode(data, name)
	if err != nil {
		return nil, SaveResult{}, err
	}
	d := &decoder{file: name}
	set := d.set(root)
	if d.err != nil {
		return nil, SaveResult{}, d.err
	}
	e := editor{data: data, lines: newLineIndex(data)}
	list, listEnd := caseList(resolve(root), e.count())
	if list == nil || len(list.Content) == 0 || list.Style&yaml.FlowStyle != 0 {
		return nil, SaveResult{}, &LoadError{File: name, Line: root.Line, Msg: "the cases are not a block list (\"- question: …\" lines); saving needs one"}
	}
	at := -1
	for i, sc := range set.Cases {
		if sameQuestion(sc.Question, c.Question) {
			at = i
			break
		}
	}
	res := SaveResult{Cases: len(set.Cases) + 1}
	switch {
	case at >= 0 && !replace:
		return nil, SaveResult{}, &CaseExistsError{File: name, ID: set.Cases[at].ID, Line: set.Cases[at].Line}
	case at >= 0:
		c.ID = set.Cases[at].ID
		c.Category = cmpOr(c.Category, set.Cases[at].Category)
		res.Replaced, res.Cases = true, len(set.Cases)
	default:
		c.ID = uniqueID(set.Cases, c.ID)
	}
	res.ID = c.ID
	first := resolve(list.Content[0])
	dash := e.dashLine(first)
	dashCol := e.dashCol(dash)
	keyOff := 2
	if first.Line == dash && first.Column-1 > dashCol {
		keyOff = first.Column - 1 - dashCol
	}
	item, err := renderItem(c, dashCol, keyOff)
	if err != nil {
		return nil, SaveResult{}, err
	}
	// The rest of the file loaded above and keeps its bytes; the new item
	// must load on its own (parsing the whole file again would double the
	// cost of a save into a large set).
	if _, err := Parse(item, name); err != nil {
		return nil, SaveResult{}, fmt.Errorf("save case: the case would not load, nothing written: %w", err)
	}
	return e.place(list, listEnd, at, dashCol, item), res, nil
}

// firstCase writes c as the first case of a file without any: a new
// file's header and c, or, below a file's comments alone, the case list.
func firstCase(data []byte, name string, c Case, comments bool) ([]byte, SaveResult, error) {
	c.ID = cmpOr(c.ID, "case-1")
	item, err := renderItem(c, 2, 2)
	if err != nil {
		return nil, SaveResult{}, err
	}
	if _, err := Parse(item, name); err != nil {
		return nil, SaveResult{}, fmt.Errorf("save case: the case would not load, nothing written: %w", err)
	}
	if !comments {
		out := append([]byte(newFileHeader), item...)
		return out, SaveResult{ID: c.ID, Created: true, Cases: 1}, nil
	}
	// Comments alone (a header written before any case): they stay,
	// and the case list starts below them.
	out := bytes.Clone(data)
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(append(out, "cases:\n"...), item...)
	return out, SaveResult{ID: c.ID, Cases: 1}, nil
}

// place splices item into the case list in place of case at, or after
// the last case when at is -1.
func (e editor) place(list *yaml.Node, listEnd, at, dashCol int, item []byte) []byte {
	if at >= 0 {
		start := e.dashLine(resolve(list.Content[at]))
		next := listEnd
		if at+1 < len(list.Content) {
			next = e.dashLine(resolve(list.Content[at+1]))
		}
		end := e.trimTail(start, next, dashCol)
		return e.splice(start, end, item)
	}
	last := e.dashLine(resolve(list.Content[len(list.Content)-1]))
	end := e.trimTail(last, listEnd, dashCol)
	return e.splice(end, end, item)
}

// noCases reports data that holds no case: only blank lines (empty) or
// comments too (comments).
func noCases(data []byte) (empty, comments bool) {
	for line := range bytes.Lines(data) {
		switch t := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))); {
		case len(t) == 0:
		case t[0] == '#':
			comments = true
		default:
			return false, false
		}
	}
	return true, comments
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sameQuestion compares questions without case and extra spaces.
func sameQuestion(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// uniqueID is want when no case has it, else the first free "case-N"
// from the number of cases plus one (the loader names a case without an
// id "case-N" by its position, so these are taken too).
func uniqueID(cases []Case, want string) string {
	taken := make(map[string]bool, len(cases))
	for _, c := range cases {
		taken[c.ID] = true
	}
	if want != "" && !taken[want] {
		return want
	}
	for n := len(cases) + 1; ; n++ {
		id := "case-" + strconv.Itoa(n)
		if !taken[id] {
			return id
		}
	}
}

// caseList finds the list of cases in root and the line it ends before
// (the next top-level key's, or past the last line).
func caseList(root *yaml.Node, lines int) (*yaml.Node, int) {
	end := lines + 1
	switch root.Kind {
	case yaml.SequenceNode:
		return root, end
	case yaml.MappingNode:
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i].Value; k == "cases" || k == "queries" {
				if i+2 < len(root.Content) {
					end = root.Content[i+2].Line
				}
				return resolve(root.Content[i+1]), end
			}
		}
	}
	return nil, end
}

// editor edits the file's bytes by whole lines (1-based).
type editor struct {
	data  []byte
	lines lineIndex
}

// count is the number of lines (a last line without a newline counts).
func (e editor) count() int {
	n := len(e.lines)
	if n > 0 && e.lines[n-1] == int64(len(e.data)) {
		n--
	}
	return n
}

// line is the text of line n without its newline ("" past the end).
func (e editor) line(n int) string {
	if n < 1 || n > len(e.lines) {
		return ""
	}
	start := e.lines[n-1]
	end := int64(len(e.data))
	if n < len(e.lines) {
		end = e.lines[n] - 1
	}
	if start > end {
		return ""
	}
	return strings.TrimSuffix(string(e.data[start:end]), "\r")
}

// offset is the byte offset of line n's start (the end of the data past
// the last line).
func (e editor) offset(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(e.lines) {
		return len(e.data)
	}
	return int(e.lines[n-1])
}

// dashLine is the line of the "-" that starts list item n: n's own line,
// or the line above it when the dash stands alone.
func (e editor) dashLine(n *yaml.Node) int {
	l := n.Line
	if pre := e.line(l); n.Column-1 <= len(pre) && strings.Contains(pre[:n.Column-1], "-") {
		return l
	}
	for j := l - 1; j >= 1; j-- {
		if t := strings.TrimSpace(e.line(j)); t == "-" {
			return j
		} else if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
	}
	return l
}

// dashCol is the column (0-based) of the dash on line n.
func (e editor) dashCol(n int) int {
	return max(strings.IndexByte(e.line(n), '-'), 0)
}

// trimTail is the line an item that starts at start ends before, given
// that the next item (or what follows the list) starts at next: blank
// lines and comments at the list's indentation or less before next stay
// where they are (they belong to what follows).
func (e editor) trimTail(start, next, dashCol int) int {
	end := next
	for end-1 > start {
		l := e.line(end - 1)
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		if t == "" || (strings.HasPrefix(t, "#") && indent <= dashCol) {
			end--
			continue
		}
		break
	}
	return end
}

// splice replaces lines [from, to) with text, which ends in a newline.
func (e editor) splice(from, to int, text []byte) []byte {
	a, b := e.offset(from), e.offset(to)
	out := make([]byte, 0, len(e.data)+len(text)+1)
	out = append(out, e.data[:a]...)
	if a > 0 && e.data[a-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, text...)
	return append(out, e.data[b:]...)
}

// renderItem writes c as a list item whose dash is at column dashCol and
// whose keys are keyOff columns right of it.
func renderItem(c Case, dashCol, keyOff int) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(max(keyOff, 2))
	if err := enc.Encode(caseNode(c)); err != nil {
		return nil, fmt.Errorf("save case: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("save case: %w", err)
	}
	body := strings.TrimSuffix(buf.String(), "\n")
	pad := strings.Repeat(" ", dashCol+keyOff)
	var out strings.Builder
	for i, l := range strings.Split(body, "\n") {
		switch {
		case i == 0:
			out.WriteString(strings.Repeat(" ", dashCol) + "-" + strings.Repeat(" ", keyOff-1) + l)
		case l != "":
			out.WriteString(pad + l)
		}
		out.WriteByte('\n')
	}
	return []byte(out.String()), nil
}

// caseNode is the YAML of a saved case: id, question, category, the
// selected-text fields, filters and what the marks expect.
func caseNode(c Case) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }
	add("id", str(c.ID))
	add("question", str(c.Question))
	if c.Category != "" {
		add("category", str(c.Category))
	}
	if c.Mode == retrieval.ModeSelectedText {
		add("mode", str(string(retrieval.ModeSelectedText)))
		add("selected_text", str(c.SelectedText))
		if c.SourceDocPath != "" {
			add("source_doc_path", str(c.SourceDocPath))
		}
		if c.SourceSection != "" {
			add("source_section", str(c.SourceSection))
		}
	}
	f := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for _, kv := range []struct {
		k string
		v []string
	}{{"modules", c.Filters.Modules}, {"chapters", c.Filters.Chapters}, {"content_types", c.Filters.ContentTypes}, {"tags", c.Filters.Tags}} {
		if len(kv.v) > 0 {
			f.Content = append(f.Content, str(kv.k), strs(kv.v))
		}
	}
	if len(f.Content) > 0 {
		add("filters", f)
	}
	ex := &yaml.Node{Kind: yaml.MappingNode}
	if len(c.Expect.DocPaths) > 0 {
		ex.Content = append(ex.Content, str("doc_paths"), strs(c.Expect.DocPaths))
	}
	if len(c.Expect.URLs) > 0 {
		ex.Content = append(ex.Content, str("urls"), strs(c.Expect.URLs))
	}
	if nr := c.Expect.NotRelevant; !nr.IsEmpty() {
		n := &yaml.Node{Kind: yaml.MappingNode}
		if len(nr.DocPaths) > 0 {
			n.Content = append(n.Content, str("doc_paths"), strs(nr.DocPaths))
		}
		if len(nr.URLs) > 0 {
			n.Content = append(n.Content, str("urls"), strs(nr.URLs))
		}
		ex.Content = append(ex.Content, str("not_relevant"), n)
	}
	if len(ex.Content) > 0 {
		add("expect", ex)
	}
	return m
}

// str is a string scalar: a literal block when it spans lines.
func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func strs(v []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range v {
		n.Content = append(n.Content, str(s))
	}
	return n
}
