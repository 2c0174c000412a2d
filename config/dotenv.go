package config

import (
	"fmt"
	"os"
	"strings"

	"ragscope/retrieval"
)

// readDotEnv reads a .env file: KEY=VALUE lines, optionally prefixed with
// "export ", blank lines and # comments; values may be unquoted (a " #"
// starts a comment), 'single-quoted' (literal) or "double-quoted" (\n, \t,
// \", \\ escapes; may span lines). Variables are not expanded.
//
// Its errors name the file, the line and the variable, never a value: a .env
// holds API keys, and a message that quotes the file would print them.
func readDotEnv(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDotEnv(path, string(data))
}

// parseDotEnv parses the text of a .env file; name is used in errors.
func parseDotEnv(name, src string) (map[string]string, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.Split(src, "\n")
	vals := map[string]string{}
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
			return nil, bad(lineNo, "not a KEY=VALUE line (the value is not shown)")
		}
		key := strings.TrimSpace(line[:eq])
		if !validEnvName(key) {
			return nil, bad(lineNo, "invalid variable name before %q (use letters, digits and _)", line[eq:eq+1])
		}
		raw := strings.TrimLeft(line[eq+1:], " \t")
		switch {
		case strings.HasPrefix(raw, "'"):
			end := strings.IndexByte(raw[1:], '\'')
			if end < 0 {
				return nil, bad(lineNo, "%s: unterminated single-quoted value (the value is not shown)", key)
			}
			if tail := strings.TrimSpace(raw[end+2:]); tail != "" && !strings.HasPrefix(tail, "#") {
				return nil, bad(lineNo, "%s: unexpected text after the closing quote", key)
			}
			vals[key] = raw[1 : end+1]
		case strings.HasPrefix(raw, `"`):
			// A double-quoted value may continue on the next lines.
			text := raw[1:]
			startLine := lineNo
			var b strings.Builder
			closed := false
			for !closed {
				for j := 0; j < len(text); j++ {
					c := text[j]
					if c == '\\' && j+1 < len(text) {
						j++
						switch text[j] {
						case 'n':
							b.WriteByte('\n')
						case 't':
							b.WriteByte('\t')
						case 'r':
							b.WriteByte('\r')
						default:
							b.WriteByte(text[j])
						}
						continue
					}
					if c == '"' {
						if tail := strings.TrimSpace(text[j+1:]); tail != "" && !strings.HasPrefix(tail, "#") {
							return nil, bad(i+1, "%s: unexpected text after the closing quote", key)
						}
						closed = true
						break
					}
					b.WriteByte(c)
				}
				if closed {
					break
				}
				if i+1 >= len(lines) {
					return nil, bad(startLine, "%s: unterminated double-quoted value (the value is not shown)", key)
				}
				i++
				b.WriteByte('\n')
				text = lines[i]
			}
			vals[key] = b.String()
		default:
			if k := strings.Index(raw, " #"); k >= 0 {
				raw = raw[:k]
			} else if k := strings.Index(raw, "\t#"); k >= 0 {
				raw = raw[:k]
			}
			vals[key] = strings.TrimSpace(raw)
		}
	}
	return vals, nil
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
