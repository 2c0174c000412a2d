// Package yamlsafe encodes YAML that shows no text reordering to whoever
// opens it: the YAML library writes C0 and C1 controls (ESC, BEL, U+0085)
// as escapes but bidi controls (U+202E and its kin) raw, since YAML counts
// them printable. Encode writes every string holding one double-quoted
// with the control as a \u escape, which a YAML reader decodes back to the
// same string.
package yamlsafe

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"ragscope/internal/jsonsafe"
)

// Encode returns v (a value or a *yaml.Node document) as YAML indented by
// two spaces, with every bidi control (jsonsafe.Unsafe) in a string
// written as a \uXXXX escape inside a double-quoted scalar. Comments
// cannot hold an escape: the caller keeps controls out of them.
func Encode(v any) ([]byte, error) {
	doc, ok := v.(*yaml.Node)
	if !ok {
		doc = &yaml.Node{}
		if err := doc.Encode(v); err != nil {
			return nil, err
		}
	}
	quoteUnsafe(doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if !hasUnsafe(buf.String()) {
		return buf.Bytes(), nil
	}
	// Only the double-quoted scalars quoteUnsafe marked hold such a rune
	// (comments are the caller's to keep clean), where \u is an escape.
	var out bytes.Buffer
	out.Grow(buf.Len() + 16)
	for _, r := range buf.String() {
		if jsonsafe.Unsafe(r) {
			fmt.Fprintf(&out, `\u%04X`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes(), nil
}

// quoteUnsafe makes every scalar of n that holds a bidi control
// double-quoted, the one YAML style with escapes.
func quoteUnsafe(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && hasUnsafe(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteUnsafe(c)
	}
}

func hasUnsafe(s string) bool {
	return strings.IndexFunc(s, jsonsafe.Unsafe) >= 0
}
