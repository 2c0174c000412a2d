package docusaurus

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// FrontMatter is the front matter block of a doc as Docusaurus finds it.
type FrontMatter struct {
	// Raw is the YAML between the delimiters ("" when there is none).
	Raw string
	// Body is the rest of the file.
	Body string
	// BodyLine is the 1-based line of the file the body starts on.
	BodyLine int
	// Found is true when the file opens with a closed front matter block.
	Found bool
	// Unclosed is true when the file opens with "---" and no line closes
	// it; Body is then the whole file after the opening line.
	Unclosed bool
}

// SplitFrontMatter separates a leading front matter block from a doc's
// source the way Docusaurus's parser (gray-matter) does: the file (after a
// byte order mark) starts with a "---" line and the block ends at the first
// later line starting with "---" whose rest is blank, so a closing "--- "
// with trailing spaces closes it (checked by a real build). A YAML
// document end marker "..." does not. CRLF line ends are accepted.
func SplitFrontMatter(src string) FrontMatter {
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.SplitAfter(src, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\r\n") != "---" {
		return FrontMatter{Body: src, BodyLine: 1}
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r\n") == "---" {
			return FrontMatter{
				Raw:      strings.Join(lines[1:i], ""),
				Body:     strings.Join(lines[i+1:], ""),
				BodyLine: i + 2,
				Found:    true,
			}
		}
	}
	return FrontMatter{Body: strings.Join(lines[1:], ""), BodyLine: 2, Unclosed: true}
}

// Fields are a front matter block's top-level keys as YAML values.
type Fields map[string]any

// ParseFields parses a front matter block's YAML (FrontMatter.Raw). Broken
// YAML gives the error together with the keys that still parse, each
// top-level key (with its indented continuation lines) parsed on its own,
// so a bad description does not lose the slug.
func ParseFields(raw string) (Fields, error) {
	var m map[string]any
	err := yaml.Unmarshal([]byte(raw), &m)
	if err == nil {
		if m == nil {
			m = map[string]any{}
		}
		return m, nil
	}
	out := Fields{}
	var block bytes.Buffer
	flush := func() {
		if block.Len() == 0 {
			return
		}
		var part map[string]any
		if yaml.Unmarshal(block.Bytes(), &part) == nil {
			for k, v := range part {
				out[k] = v
			}
		}
		block.Reset()
	}
	for _, l := range strings.SplitAfter(raw, "\n") {
		top := l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && l[0] != '#' && strings.TrimSpace(l) != ""
		if top {
			flush()
		}
		block.WriteString(l)
	}
	flush()
	return out, fmt.Errorf("front matter: %w", err)
}

// String is the first of keys whose value is a non-empty scalar, as
// trimmed text ("" for maps, lists and missing keys).
func (f Fields) String(keys ...string) string {
	for _, k := range keys {
		switch x := f[k].(type) {
		case string:
			if s := strings.TrimSpace(x); s != "" {
				return s
			}
		case bool, int, int64, uint64, float64:
			return fmt.Sprint(x)
		}
	}
	return ""
}

// Bool is the key's value when it is a YAML boolean, else false.
func (f Fields) Bool(key string) bool {
	b, _ := f[key].(bool)
	return b
}
