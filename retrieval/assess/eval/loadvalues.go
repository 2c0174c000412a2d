package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"ragscope/retrieval"
)

func (d *decoder) str(n *yaml.Node, field string) string {
	if isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.fail(n, field, "want a string")
		return ""
	}
	return n.Value
}

// strs accepts one string or a list of strings; empty strings are errors.
func (d *decoder) strs(n *yaml.Node, field string) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		if strings.TrimSpace(n.Value) == "" {
			d.fail(n, field, "must not be empty")
			return nil
		}
		return []string{strings.TrimSpace(n.Value)}
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, "want a string or a list of strings")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, it := range n.Content {
		it = resolve(it)
		f := fmt.Sprintf("%s[%d]", field, i)
		if it.Kind != yaml.ScalarNode || isNull(it) {
			d.fail(it, f, "want a string")
			return nil
		}
		if strings.TrimSpace(it.Value) == "" {
			d.fail(it, f, "must not be empty")
			return nil
		}
		out = append(out, strings.TrimSpace(it.Value))
	}
	return out
}

func (d *decoder) float(n *yaml.Node, field string) float64 {
	if n.Kind != yaml.ScalarNode || isNull(n) || n.Tag == "!!str" || n.Tag == "!!bool" {
		d.fail(n, field, "want a number, got %s", describe(n))
		return 0
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		d.fail(n, field, "want a number, got %s", describe(n))
		return 0
	}
	return x
}

func (d *decoder) unit(n *yaml.Node, field string) *float64 {
	if isNull(n) {
		return nil
	}
	x := d.float(n, field)
	if d.err == nil && (x < 0 || x > 1) {
		d.fail(n, field, "must be 0..1, got %s", n.Value)
	}
	return &x
}

func (d *decoder) latency(n *yaml.Node, field string) float64 {
	if isNull(n) {
		return 0
	}
	x := d.float(n, field)
	if d.err == nil && x <= 0 {
		d.fail(n, field, "must be a positive number of milliseconds, got %s", n.Value)
	}
	return x
}

func (d *decoder) topK(n *yaml.Node, field string) int {
	if isNull(n) {
		return 0
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.fail(n, field, "must be %d..%d, got %s", retrieval.MinTopK, retrieval.MaxTopK, describe(n))
		return 0
	}
	k, err := strconv.Atoi(n.Value)
	if err != nil || k < retrieval.MinTopK || k > retrieval.MaxTopK {
		d.fail(n, field, "must be %d..%d, got %s", retrieval.MinTopK, retrieval.MaxTopK, n.Value)
		return 0
	}
	return k
}

func (d *decoder) boolean(n *yaml.Node, field string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		d.fail(n, field, "want true or false, got %s", describe(n))
		return false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

func (d *decoder) mode(n *yaml.Node, field string) retrieval.Mode {
	v := strings.ToLower(strings.TrimSpace(d.str(n, field)))
	switch v {
	case "", "normal":
		return retrieval.ModeNormal
	case "selected_text_only", "selected_text", "selected-text", "selection":
		return retrieval.ModeSelectedText
	}
	d.fail(n, field, "must be normal or selected_text_only, got %q", v)
	return ""
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	if isNull(n) {
		return "null"
	}
	return strconv.Quote(n.Value)
}
