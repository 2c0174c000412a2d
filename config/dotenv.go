package config

import (
	"errors"
	"fmt"
	"strings"

	"ragscope/internal/readlimit"
	"ragscope/retrieval"
)

// dotEnv is a .env file read: its variables and the line each was set on.
type dotEnv struct {
	path  string
	vals  map[string]string
	lines map[string]int
}

// readDotEnv reads a .env file: KEY=VALUE lines, optionally prefixed with
// "export ", blank lines and # comments; values may be unquoted (a " #"
// starts a comment), 'single-quoted' (literal) or "double-quoted" (\n, \t,
// \", \\ escapes; may span lines). Variables are not expanded. The file
// must be a regular file of at most readlimit.DotEnv bytes.
//
// Its errors name the file, the line and the variable, never a value: a .env
// holds API keys, and a message that quotes the file would print them.
func readDotEnv(path string) (*dotEnv, error) {
	data, err := readlimit.ReadFile(path, readlimit.DotEnv)
	if errors.Is(err, readlimit.ErrNotRegular) || errors.Is(err, readlimit.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w", retrieval.ErrConfig, err)
	}
	if err != nil {
		return nil, err
	}
	d := &dotEnv{path: path}
	d.vals, d.lines, err = parseDotEnvLines(path, string(data))
	if err != nil {
		return nil, err
	}
	return d, nil
}

// lookup is env with the .env's variables added: the environment wins.
func (d *dotEnv) lookup(env func(string) (string, bool)) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if v, ok := env(k); ok {
			return v, true
		}
		v, ok := d.vals[k]
		return v, ok
	}
}

// check parses, with its setting's parser, every value the .env gives a
// setting that env (the environment) leaves to it, so that a bad one is
// reported with the file and line it is on, as a bad line is: "PATH line
// 3: RAGSCOPE_TOP_K: not a whole number (the value is not shown)". The
// variables are tried in the order Config.readEnv tries them; the
// providers' settings are those of providers.
func (d *dotEnv) check(env func(string) (string, bool), providers ProviderTable) error {
	for _, s := range providers.Settings() {
		for _, name := range s.Env {
			if v, ok := env(name); ok && strings.TrimSpace(v) != "" {
				break // the environment's value is the one used
			}
			v, ok := d.vals[name]
			if !ok || strings.TrimSpace(v) == "" {
				continue
			}
			scratch := Default()
			scratch.Providers = providers
			if err := s.Set(&scratch, strings.TrimSpace(v)); err != nil {
				return fmt.Errorf("%w: %s line %d: %s: %w (the value is not shown)", retrieval.ErrConfig, d.path, d.lines[name], name, err)
			}
			break
		}
	}
	return nil
}

// parseDotEnv parses the text of a .env file; name is used in errors.
func parseDotEnv(name, src string) (map[string]string, error) {
	vals, _, err := parseDotEnvLines(name, src)
	return vals, err
}

// parseDotEnvLines is parseDotEnv that also returns the line each
// variable was last set on.
func parseDotEnvLines(name, src string) (map[string]string, map[string]int, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.Split(src, "\n")
	vals := map[string]string{}
	at := map[string]int{}
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s line %d: %s", retrieval.ErrConfig, name, line, fmt.Sprintf(format, args...))
	}
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			line = strings.TrimSpace(rest)
		}
		eq := strings.IndexAny(line, "=:")
		if eq < 0 {
			return nil, nil, bad(lineNo, "not a KEY=VALUE line (the value is not shown)")
		}
		key := strings.TrimSpace(line[:eq])
		if !validEnvName(key) {
			return nil, nil, bad(lineNo, "invalid variable name before %q (use letters, digits and _)", line[eq:eq+1])
		}
		raw := strings.TrimLeft(line[eq+1:], " \t")
		switch {
		case strings.HasPrefix(raw, "'"):
			end := strings.IndexByte(raw[1:], '\'')
			if end < 0 {
				return nil, nil, bad(lineNo, "%s: unterminated single-quoted value (the value is not shown)", key)
			}
			if tail := strings.TrimSpace(raw[end+2:]); tail != "" && !strings.HasPrefix(tail, "#") {
				return nil, nil, bad(lineNo, "%s: unexpected text after the closing quote", key)
			}
			vals[key], at[key] = raw[1:end+1], lineNo
		case strings.HasPrefix(raw, `"`):
			v, last, err := doubleQuoted(lines, i, raw[1:])
			if err != nil {
				return nil, nil, bad(err.line, "%s: %s", key, err.msg)
			}
			vals[key], at[key] = v, lineNo
			i = last
		default:
			if k := strings.Index(raw, " #"); k >= 0 {
				raw = raw[:k]
			} else if k := strings.Index(raw, "\t#"); k >= 0 {
				raw = raw[:k]
			}
			vals[key], at[key] = strings.TrimSpace(raw), lineNo
		}
	}
	return vals, at, nil
}

// quoteError is a problem of a quoted value at a line (1-based).
type quoteError struct {
	line int
	msg  string
}

// doubleQuoted reads a double-quoted value that starts with text (after
// the opening quote) on lines[i] and may continue on the next lines,
// with \n, \t, \r and \<char> escapes. It returns the value and the
// index of the line it closes on.
func doubleQuoted(lines []string, i int, text string) (string, int, *quoteError) {
	start := i
	var b strings.Builder
	for {
		for j := 0; j < len(text); j++ {
			c := text[j]
			if c == '\\' && j+1 < len(text) {
				j++
				b.WriteByte(unescapeDotEnv(text[j]))
				continue
			}
			if c == '"' {
				if tail := strings.TrimSpace(text[j+1:]); tail != "" && !strings.HasPrefix(tail, "#") {
					return "", i, &quoteError{i + 1, "unexpected text after the closing quote"}
				}
				return b.String(), i, nil
			}
			b.WriteByte(c)
		}
		if i+1 >= len(lines) {
			return "", i, &quoteError{start + 1, "unterminated double-quoted value (the value is not shown)"}
		}
		i++
		b.WriteByte('\n')
		text = lines[i]
	}
}

// unescapeDotEnv is the byte an escape \c stands for in a double-quoted
// value: a newline, tab or carriage return for n, t and r, else c itself.
func unescapeDotEnv(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

// validEnvName reports whether s is a variable name: a letter or _, then
// letters, digits, _ or '.'.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z'):
		case i > 0 && ((r >= '0' && r <= '9') || r == '.'):
		default:
			return false
		}
	}
	return true
}
