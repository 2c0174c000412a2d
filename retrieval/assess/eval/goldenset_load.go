package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"ragscope/internal/lazyre"
	"ragscope/internal/readlimit"
	"ragscope/internal/srcpos"
	"ragscope/retrieval"
)

// ErrInvalidSet is matched (errors.Is) by every error of a malformed set.
var ErrInvalidSet = errors.New("invalid golden set")

// LoadError is a malformed set: where (file, line, field path such as
// "cases[3].top_k") and what to fix.
type LoadError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error formats the error as "file:line: field: message".
func (e *LoadError) Error() string {
	s := srcpos.Prefix(e.File, e.Line)
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// Is matches ErrInvalidSet.
func (e *LoadError) Is(target error) bool { return target == ErrInvalidSet }

// LoadFile reads and parses the set at path (JSON or YAML). path must be
// a regular file of at most readlimit.GoldenSet bytes: a folder, a named
// pipe or a device (whose reading would block or never end) and a larger
// file are a LoadError naming it.
func LoadFile(path string) (Set, error) {
	data, err := readSetFile(path)
	if err != nil {
		return Set{}, err
	}
	s, err := Parse(data, path)
	if err != nil {
		return Set{}, err
	}
	s.Source = path
	return s, nil
}

// readSetFile reads the golden set file at path within its bound: a path
// that is not a regular file or is too large is a LoadError naming it;
// other errors (a missing file: fs.ErrNotExist) are wrapped.
func readSetFile(path string) ([]byte, error) {
	data, err := readlimit.ReadFile(path, readlimit.GoldenSet)
	var notFile *readlimit.NotRegularError
	switch {
	case errors.As(err, &notFile):
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("it is %s, not a golden set file: give a YAML or JSON file", readlimit.Kind(notFile.Mode))}
	case errors.Is(err, readlimit.ErrTooLarge):
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("larger than %s, the most ragscope reads of a golden set: split it into smaller sets", readlimit.Size(readlimit.GoldenSet))}
	case err != nil:
		return nil, fmt.Errorf("read golden set: %w", err)
	}
	return data, nil
}

// Parse parses a set from data. name (a file name) picks the format by
// extension (.json, .yaml, .yml) and names the file in errors; with another
// extension, data that starts with '{' or '[' and is valid JSON is JSON,
// anything else YAML.
func Parse(data []byte, name string) (Set, error) {
	root, err := parseNode(data, name)
	if err != nil {
		return Set{}, err
	}
	d := &decoder{file: name}
	s := d.set(root)
	if d.err != nil {
		return Set{}, d.err
	}
	if s.Name == "" && name != "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	return s, nil
}

func parseNode(data []byte, name string) (*yaml.Node, error) {
	ext := strings.ToLower(filepath.Ext(name))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &LoadError{File: name, Msg: "the file is empty; write a list of cases (see docs/golden-sets.md)"}
	}
	looksJSON := trimmed[0] == '{' || trimmed[0] == '['
	switch {
	case ext == ".json":
		return jsonNode(data, name)
	case ext == ".yaml" || ext == ".yml":
		return yamlNode(data, name)
	case looksJSON && json.Valid(data):
		return jsonNode(data, name)
	}
	return yamlNode(data, name)
}

var yamlLine = lazyre.New(`^line (\d+): (.*)$`)

func yamlNode(data []byte, name string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		le := &LoadError{File: name, Msg: "not valid YAML: " + msg}
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			le.Line, _ = strconv.Atoi(m[1])
			le.Msg = "not valid YAML: " + m[2]
		}
		return nil, le
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &LoadError{File: name, Msg: "the file holds no document; write a list of cases"}
	}
	return doc.Content[0], nil
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int64

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, b := range data {
		if b == '\n' {
			idx = append(idx, int64(i+1))
		}
	}
	return idx
}

func (l lineIndex) line(off int64) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}

// decoder walks the node tree; the first error stops it.
type decoder struct {
	file string
	err  error
}

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) {
	if d.err != nil {
		return
	}
	le := &LoadError{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		le.Line = n.Line
	}
	d.err = le
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// pairs returns a mapping's key/value pairs, failing on duplicate keys.
func (d *decoder) pairs(n *yaml.Node, field string) [][2]*yaml.Node {
	seen := map[string]bool{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if seen[k.Value] {
			d.fail(k, join(field, k.Value), "given twice")
			return nil
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

// fields walks the mapping n, calling each with a key, its value and the
// key's field path. A null n is an empty mapping; anything else that is
// not a mapping fails with "want " and want.
func (d *decoder) fields(n *yaml.Node, field, want string, each func(k, v *yaml.Node, f string)) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, field, "want %s", want)
		return
	}
	for _, kv := range d.pairs(n, field) {
		each(kv[0], kv[1], join(field, kv[0].Value))
	}
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// Top-level keys of the object form, and informational keys accepted and
// ignored in cases (existing test sets carry them).
var (
	setKeys = []string{"name", "description", "version", "top_k", "threshold", "thresholds", "queries", "cases"}
	// ignoredKeys is a slice, not a map: a map literal is built at
	// initialisation, in every ragscope process.
	ignoredKeys = []string{
		"description", "notes", "note", "comment", "difficulty",
		"expected_answer", "reference_answer", "answer", "ground_truth",
		"metadata", "paraphrased",
	}
)

func (d *decoder) set(root *yaml.Node) Set {
	root = resolve(root)
	var s Set
	switch root.Kind {
	case yaml.SequenceNode:
		s.Cases = d.cases(root, "cases")
		return s
	case yaml.MappingNode:
	default:
		d.fail(root, "", "want a list of cases, or an object with the list under \"cases\" or \"queries\"")
		return s
	}
	var list *yaml.Node
	listKey := ""
	for _, kv := range d.pairs(root, "") {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "name":
			s.Name = d.str(v, "name")
		case "description", "version":
		case "top_k":
			s.TopK = d.topK(v, "top_k")
		case "threshold":
			s.Threshold = d.unit(v, "threshold")
		case "thresholds":
			s.Thresholds = d.thresholds(v, "thresholds")
		case "queries", "cases":
			if list != nil {
				d.fail(k, k.Value, "give the cases under either \"cases\" or \"queries\", not both")
				return s
			}
			list, listKey = v, k.Value
		default:
			d.fail(k, k.Value, "unknown field (known: %s)", strings.Join(setKeys, ", "))
			return s
		}
	}
	if list == nil {
		if d.err == nil {
			d.fail(root, "cases", "missing: put the list of cases under \"cases\" (or \"queries\")")
		}
		return s
	}
	s.Cases = d.cases(list, listKey)
	return s
}

func (d *decoder) thresholds(n *yaml.Node, field string) Thresholds {
	var t Thresholds
	d.fields(n, field, "an object with min_hit_at_k, min_mrr, max_p95_ms or min_keyword_coverage", func(k, v *yaml.Node, f string) {
		switch k.Value {
		case "min_hit_at_k":
			t.MinHitAtK = d.unit(v, f)
		case "min_mrr":
			t.MinMRR = d.unit(v, f)
		case "min_keyword_coverage":
			t.MinKeywordCoverage = d.unit(v, f)
		case "max_p95_ms":
			x := d.float(v, f)
			if d.err == nil && x <= 0 {
				d.fail(v, f, "must be a positive number of milliseconds")
			}
			t.MaxP95MS = &x
		default:
			d.fail(k, f, "unknown field (known: min_hit_at_k, min_mrr, max_p95_ms, min_keyword_coverage)")
		}
	})
	return t
}

func (d *decoder) cases(n *yaml.Node, field string) []Case {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, "want a list of cases")
		return nil
	}
	if len(n.Content) == 0 {
		d.fail(n, field, "the list is empty; add at least one case")
		return nil
	}
	out := make([]Case, 0, len(n.Content))
	ids := map[string]int{}
	for i, cn := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		c := d.kase(resolve(cn), f)
		if d.err != nil {
			return nil
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("case-%d", i+1)
		}
		if prev, dup := ids[c.ID]; dup {
			d.fail(cn, f+".id", "%q is already the id of %s[%d]", c.ID, field, prev)
			return nil
		}
		ids[c.ID] = i
		out = append(out, c)
	}
	return out
}

var caseKeys = []string{
	"id", "question", "category", "mode", "selected_text", "source_doc_path", "source_section",
	"top_k", "filters", "expect", "expected_modules", "expected_chapters", "expected_chapter",
	"expected_doc_paths", "expected_urls", "expected_keywords", "max_latency_ms", "no_answer",
	"expected_refuse", "expected_answer_keywords",
}

func (d *decoder) kase(n *yaml.Node, field string) Case {
	c := Case{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		d.fail(n, field, "want an object with at least a question")
		return c
	}
	var expectNode *yaml.Node
	for _, kv := range d.pairs(n, field) {
		k, v := kv[0], kv[1]
		f := join(field, k.Value)
		switch k.Value {
		case "id":
			c.ID = strings.TrimSpace(d.str(v, f))
		case "question", "query", "query_text":
			if c.Question != "" {
				d.fail(k, f, "the question is given twice (question, query or query_text)")
			}
			c.Question = d.str(v, f)
		case "category":
			c.Category = strings.TrimSpace(d.str(v, f))
		case "mode":
			c.Mode = d.mode(v, f)
		case "selected_text":
			c.SelectedText = d.str(v, f)
		case "source_doc_path":
			c.SourceDocPath = d.str(v, f)
		case "source_section":
			c.SourceSection = d.str(v, f)
		case "top_k":
			c.TopK = d.topK(v, f)
		case "filters":
			c.Filters = d.filters(v, f)
		case "expect":
			expectNode = v
			d.expect(v, f, &c.Expect)
		case "expected_modules", "expected_module", "expected_chapters", "expected_chapter",
			"expected_doc_paths", "expected_doc_path", "expected_urls", "expected_url",
			"expected_keywords", "max_latency_ms", "no_answer", "expected_refuse", "refuse",
			"expected_answer_keywords", "answer_keywords":
			d.expectField(&c.Expect, strings.TrimPrefix(k.Value, "expected_"), v, f)
		case "expected_answer_contains":
			d.expectField(&c.Expect, "answer_keywords", v, f)
		default:
			if !slices.Contains(ignoredKeys, k.Value) {
				d.fail(k, f, "unknown field (known: %s)", strings.Join(caseKeys, ", "))
			}
		}
		if d.err != nil {
			return c
		}
	}
	d.check(&c, n, expectNode, field)
	return c
}

// check validates a decoded case as a whole.
func (d *decoder) check(c *Case, n, expectNode *yaml.Node, field string) {
	if strings.TrimSpace(c.Question) == "" {
		d.fail(n, field+".question", "required: write the question a student would ask")
		return
	}
	if c.Mode == retrieval.ModeSelectedText {
		if strings.TrimSpace(c.SelectedText) == "" {
			d.fail(n, field+".selected_text", "required in selected_text_only mode: paste the selection")
		}
		return
	}
	en := expectNode
	if en == nil {
		en = n
	}
	e := c.Expect
	if e.NoAnswer && e.HasRelevance() {
		d.fail(en, field+".expect.no_answer", "a no-answer case cannot also expect modules, chapters, doc paths or URLs")
		return
	}
	// A case with no expectation is valid: it is unlabelled, and only a
	// judge (eval --judge) measures it.
	if e.MaxScore != nil && !e.NoAnswer {
		d.fail(en, field+".expect.max_score", "goes with no_answer: true")
	}
	if c.SelectedText != "" || c.SourceDocPath != "" || c.SourceSection != "" {
		d.fail(n, field+".mode", "selected_text, source_doc_path and source_section need mode: selected_text_only")
	}
}

func (d *decoder) expect(n *yaml.Node, field string, e *Expect) {
	d.fields(n, field, "an object (modules, chapters, doc_paths, urls, keywords, max_latency_ms, no_answer, max_score)", func(k, v *yaml.Node, f string) {
		if !d.expectField(e, k.Value, v, f) {
			d.fail(k, f, "unknown field (known: modules, chapters, doc_paths, urls, keywords, max_latency_ms, no_answer, max_score, refuse, answer_keywords, not_relevant)")
		}
	})
}

// expectField decodes one expectation named as under "expect" into e; it
// reports false for a name that is not an expectation.
func (d *decoder) expectField(e *Expect, name string, v *yaml.Node, f string) bool {
	switch name {
	case "modules", "module":
		e.Modules = append(e.Modules, d.strs(v, f)...)
	case "chapters", "chapter":
		e.Chapters = append(e.Chapters, d.strs(v, f)...)
	case "doc_paths", "doc_path":
		e.DocPaths = append(e.DocPaths, d.strs(v, f)...)
	case "urls", "url":
		e.URLs = append(e.URLs, d.strs(v, f)...)
	case "keywords":
		e.Keywords = append(e.Keywords, d.strs(v, f)...)
	case "max_latency_ms":
		e.MaxLatencyMS = d.latency(v, f)
	case "no_answer":
		e.NoAnswer = d.boolean(v, f)
	case "max_score":
		e.MaxScore = d.unit(v, f)
	case "refuse":
		e.Refuse = d.boolean(v, f)
	case "answer_keywords":
		e.AnswerKeywords = append(e.AnswerKeywords, d.strs(v, f)...)
	case "not_relevant":
		d.notRelevant(v, f, &e.NotRelevant)
	default:
		return false
	}
	return true
}

// notRelevant decodes expect.not_relevant: the doc paths and URLs an
// author marked not relevant.
func (d *decoder) notRelevant(n *yaml.Node, field string, nr *NotRelevant) {
	d.stringLists(n, field, "field", []namedList{{"doc_paths", &nr.DocPaths}, {"urls", &nr.URLs}})
}

func (d *decoder) filters(n *yaml.Node, field string) retrieval.Filters {
	var fl retrieval.Filters
	d.stringLists(n, field, "filter", []namedList{
		{"modules", &fl.Modules}, {"chapters", &fl.Chapters}, {"content_types", &fl.ContentTypes}, {"tags", &fl.Tags},
	})
	return fl
}

// namedList is a field of string lists: its plural name (the singular,
// without the final "s", is accepted too) and where it goes.
type namedList struct {
	name string
	dst  *[]string
}

// stringLists decodes a mapping of string lists; an unknown key is an
// "unknown <what>" error listing the known names.
func (d *decoder) stringLists(n *yaml.Node, field, what string, lists []namedList) {
	names := make([]string, len(lists))
	for i, l := range lists {
		names[i] = l.name
	}
	known := strings.Join(names, ", ")
	d.fields(n, field, "an object ("+known+")", func(k, v *yaml.Node, f string) {
		for _, l := range lists {
			if k.Value == l.name || k.Value == strings.TrimSuffix(l.name, "s") {
				*l.dst = append(*l.dst, d.strs(v, f)...)
				return
			}
		}
		d.fail(k, f, "unknown %s (known: %s)", what, known)
	})
}
