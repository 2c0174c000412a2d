package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// jsonNode converts JSON into a yaml.Node tree with line numbers, so JSON
// and YAML share one decoder and one style of error.
func jsonNode(data []byte, name string) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	jr := &jsonReader{dec: dec, data: data, name: name, lines: newLineIndex(data)}
	n, err := jr.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &LoadError{File: name, Line: jr.lines.line(dec.InputOffset()), Msg: "not valid JSON: data after the top-level value"}
	}
	return n, nil
}

// jsonReader reads a JSON document token by token into YAML nodes that
// carry their lines.
type jsonReader struct {
	dec   *json.Decoder
	data  []byte
	name  string
	lines lineIndex
}

// fail is a decoder error as a LoadError at its line.
func (jr *jsonReader) fail(err error) error {
	le := &LoadError{File: jr.name, Msg: "not valid JSON: " + err.Error()}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		le.Line = jr.lines.line(se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		le.Line = jr.lines.line(int64(len(jr.data)))
		le.Msg = "not valid JSON: unexpected end of file"
	default:
		le.Line = jr.lines.line(jr.dec.InputOffset())
	}
	return le
}

// start is the offset of the next token: after whitespace and the
// separators the decoder consumes silently.
func (jr *jsonReader) start() int64 {
	off := jr.dec.InputOffset()
	for off < int64(len(jr.data)) {
		switch jr.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// value reads the next value, depth levels down.
func (jr *jsonReader) value(depth int) (*yaml.Node, error) {
	if depth > 64 {
		return nil, &LoadError{File: jr.name, Line: jr.lines.line(jr.dec.InputOffset()), Msg: "nested too deeply"}
	}
	line := jr.lines.line(jr.start())
	tok, err := jr.dec.Token()
	if err != nil {
		return nil, jr.fail(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return jr.object(line, depth)
		case '[':
			return jr.array(line, depth)
		}
		return nil, &LoadError{File: jr.name, Line: line, Msg: "not valid JSON: unexpected " + t.String()}
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Line: line}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t), Line: line}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t), Line: line}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
	return nil, &LoadError{File: jr.name, Line: line, Msg: fmt.Sprintf("not valid JSON: unexpected token %v", tok)}
}

// object reads an object's members, its '{' read at line.
func (jr *jsonReader) object(line, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	for jr.dec.More() {
		kline := jr.lines.line(jr.start())
		kt, err := jr.dec.Token()
		if err != nil {
			return nil, jr.fail(err)
		}
		k, _ := kt.(string)
		v, err := jr.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: kline}, v)
	}
	if _, err := jr.dec.Token(); err != nil {
		return nil, jr.fail(err)
	}
	return n, nil
}

// array reads an array's values, its '[' read at line.
func (jr *jsonReader) array(line, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
	for jr.dec.More() {
		v, err := jr.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
	if _, err := jr.dec.Token(); err != nil {
		return nil, jr.fail(err)
	}
	return n, nil
}
