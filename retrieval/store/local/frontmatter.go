package local

import (
	"errors"
	"fmt"
	"ragscope/internal/lazyre"
	"strconv"
	"strings"

	"ragscope/retrieval/docusaurus"
)

// frontMatter holds the front matter fields the chunker uses.
type frontMatter struct {
	Title       string
	Slug        string
	ID          string
	Tags        []string
	ContentType string
	Module      string
	Chapter     string
	Description string
	// Draft pages are not published by Docusaurus, so nothing cites them.
	Draft bool
}

// Warning is a problem in one file that did not stop the chunker: the file
// was still chunked with what could be read, or skipped.
type Warning struct {
	// File is the doc path ("docs/module-1/intro.md").
	File string `json:"file"`
	// Line is the 1-based line in the file, or 0 when not known.
	Line int `json:"line,omitempty"`
	// Message says what was wrong and what ragscope did about it.
	Message string `json:"message"`
}

// String formats the warning as "file:line: message".
func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	return w.File + ": " + w.Message
}

var yamlErrLine = lazyre.New(`line (\d+)`)

// splitFrontMatter separates a leading YAML front matter block from the
// body. It returns the parsed fields, the body, the 1-based file line the
// body starts on and any warnings (with file-relative line numbers).
// Broken YAML is salvaged key by key so good fields still count.
func splitFrontMatter(file string, src string) (frontMatter, string, int, []Warning) {
	var fm frontMatter
	block := docusaurus.SplitFrontMatter(src)
	if block.Unclosed {
		w := Warning{File: file, Line: 1, Message: "front matter is not closed by a '---' line; treated the whole file as content"}
		return fm, block.Body, block.BodyLine, []Warning{w}
	}
	if !block.Found {
		return fm, src, 1, nil
	}
	raw, body, bodyLine := block.Raw, block.Body, block.BodyLine
	var warns []Warning

	m, err := docusaurus.ParseFields(raw)
	if err != nil {
		line := 1
		if sm := yamlErrLine.FindStringSubmatch(err.Error()); sm != nil {
			if n, convErr := strconv.Atoi(sm[1]); convErr == nil {
				line = n + 1 // the YAML starts on file line 2
			}
		}
		msg := strings.TrimPrefix(errors.Unwrap(err).Error(), "yaml: ")
		msg = yamlErrLine.ReplaceAllString(msg, "")
		msg = strings.Trim(strings.TrimSpace(msg), ": ")
		warns = append(warns, Warning{File: file, Line: line,
			Message: "broken front matter (" + msg + "); kept the fields that could be read"})
	}
	fm.Title = m.String("title")
	fm.Slug = m.String("slug")
	fm.ID = m.String("id")
	fm.ContentType = m.String("content_type", "contentType", "content-type")
	fm.Module = m.String("module")
	fm.Chapter = m.String("chapter")
	fm.Description = m.String("description")
	fm.Tags = tagList(m["tags"])
	fm.Draft = m.Bool("draft")
	return fm, body, bodyLine, warns
}

// scalar renders a YAML scalar as trimmed text; maps and lists give "".
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(x)
	}
	return ""
}

// tagList accepts a YAML list, a comma-separated string, or Docusaurus tag
// objects ({label: …}); it drops empty and repeated tags.
func tagList(v any) []string {
	var raw []string
	switch x := v.(type) {
	case string:
		raw = strings.Split(x, ",")
	case []any:
		for _, e := range x {
			if mm, ok := e.(map[string]any); ok {
				raw = append(raw, scalar(mm["label"]))
				continue
			}
			raw = append(raw, scalar(e))
		}
	default:
		if s := scalar(x); s != "" {
			raw = []string{s}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range raw {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
