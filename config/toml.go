package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"ragscope/internal/readlimit"
	"ragscope/retrieval"
)

// readFile reads path and applies its top-level keys; the named setups
// it defines are kept for applySetup.
func (c *Config) readFile(path string, mustExist bool) error {
	f, err := parseFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil
		}
		return err
	}
	c.File = path
	top := f.doc
	if raw, ok := top[setupsKey]; ok {
		tbl, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %s line %d: %s must be tables, e.g. [setups.small]", retrieval.ErrConfig, path, f.line(setupsKey), setupsKey)
		}
		top = maps.Clone(top)
		delete(top, setupsKey)
		f.setups = tbl
		// Every setup's keys are checked now, chosen or not: a typo
		// surfaces on the first run, not on the day the setup is used.
		settings := c.Providers.Settings()
		for name, v := range tbl {
			if strings.TrimSpace(name) == "" {
				return fmt.Errorf("%w: %s line %d: [setups.%q] has no name: name the setup, e.g. [setups.small], and choose it with --setup small", retrieval.ErrConfig, path, f.line(joinKey(setupsKey, name)), name)
			}
			if sub, ok := v.(map[string]any); ok {
				if _, err := f.checkKeys(settings, joinKey(setupsKey, name), sub); err != nil {
					return err
				}
			}
		}
	}
	c.file = f
	c.SetupNames = f.setupNames()
	return c.applyTable(f, "", top)
}

// tomlFile is a parsed ragscope.toml: its document, the line of each key
// (for errors) and the [setups.NAME] tables.
type tomlFile struct {
	path   string
	doc    map[string]any
	lines  map[string]int
	setups map[string]any
}

// parseFile reads and decodes a ragscope.toml; a syntax error names the
// file and line and never quotes a value.
func parseFile(path string) (*tomlFile, error) {
	var doc map[string]any
	data, err := readlimit.ReadFile(path, readlimit.ConfigFile)
	if err == nil {
		_, err = toml.Decode(string(data), &doc)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		var perr toml.ParseError
		if errors.As(err, &perr) {
			where := ""
			if perr.LastKey != "" {
				where = fmt.Sprintf(" (key %s)", perr.LastKey)
			}
			return nil, fmt.Errorf("%w: %s line %d%s: %s", retrieval.ErrConfig, path, perr.Position.Line, where, withoutQuoted(perr.Message))
		}
		return nil, fmt.Errorf("%w: read %s: %w", retrieval.ErrConfig, path, err)
	}
	return &tomlFile{path: path, doc: doc, lines: keyLines(string(data))}, nil
}

// applyTable applies the settings of one table of f: the top level
// (prefix "") or a setup's ("setups.NAME"). Unknown keys are an error
// naming the file and each key's line.
func (c *Config) applyTable(f *tomlFile, prefix string, doc map[string]any) error {
	path := f.path
	full := func(k string) string { return joinKey(prefix, k) }
	settings := c.Providers.Settings()
	vals, err := f.checkKeys(settings, prefix, doc)
	if err != nil {
		return err
	}
	for _, s := range settings {
		// The preferred key wins: apply the others first.
		for i := len(s.TOML) - 1; i >= 0; i-- {
			v, ok := vals[s.TOML[i]]
			if !ok {
				continue
			}
			text, err := tomlValue(v)
			if err == nil && strings.TrimSpace(text) == "" {
				continue
			}
			if err == nil {
				err = s.Set(c, strings.TrimSpace(text))
			}
			if err != nil {
				return fmt.Errorf("%w: %s line %d: %s: %w (the value is not shown)", retrieval.ErrConfig, path, f.line(full(s.TOML[i])), full(s.TOML[i]), err)
			}
		}
	}
	if err := c.readModulePrefixes(path, doc); err != nil {
		return err
	}
	if m, ok := doc["mapping"]; ok {
		tbl, ok := m.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %s: mapping must be a table", retrieval.ErrConfig, path)
		}
		c.Mapping = map[string][]string{}
		for field, v := range tbl {
			switch t := v.(type) {
			case string:
				c.Mapping[field] = []string{t}
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok {
						return fmt.Errorf("%w: %s: mapping.%s must list payload keys as strings", retrieval.ErrConfig, path, field)
					}
					c.Mapping[field] = append(c.Mapping[field], s)
				}
			default:
				return fmt.Errorf("%w: %s: mapping.%s must be a string or a list of strings", retrieval.ErrConfig, path, field)
			}
		}
	}
	return nil
}

// checkKeys flattens one table of f, whose keys are those of settings, (the top level, prefix "", or a
// setup's) and checks its keys: unknown ones are an error naming the file
// and each key's line.
func (f *tomlFile) checkKeys(settings []Setting, prefix string, doc map[string]any) (map[string]any, error) {
	vals := map[string]any{}
	flattenTOML("", doc, vals)
	known := map[string]bool{}
	for _, s := range settings {
		for _, k := range s.TOML {
			known[k] = true
		}
	}
	var unknown []string
	for k := range vals {
		if !known[k] && k != "mapping" && !strings.HasPrefix(k, "mapping.") && k != "facets" && k != modulesKey && !strings.HasPrefix(k, modulesKey+".") {
			unknown = append(unknown, joinKey(prefix, k))
		}
	}
	if len(unknown) == 0 {
		return vals, nil
	}
	sort.Slice(unknown, func(i, j int) bool {
		li, lj := f.line(unknown[i]), f.line(unknown[j])
		if li != lj {
			return li < lj
		}
		return unknown[i] < unknown[j]
	})
	msgs := make([]string, len(unknown))
	for i, k := range unknown {
		msgs[i] = fmt.Sprintf("line %d: unknown setting %s", f.line(k), k)
	}
	return nil, fmt.Errorf("%w: %s %s (see docs/configuration.md)", retrieval.ErrConfig, f.path, strings.Join(msgs, "; "))
}

// joinKey is key under prefix ("" for the top level).
func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// modulesKey is the ragscope.toml table of path prefix -> module name.
const modulesKey = "facets.modules"

// readModulePrefixes reads [facets.modules]: "path/under/docs" = "module".
func (c *Config) readModulePrefixes(path string, doc map[string]any) error {
	facets, ok := doc["facets"].(map[string]any)
	if !ok {
		return nil
	}
	m, ok := facets["modules"]
	if !ok {
		return nil
	}
	tbl, ok := m.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s: %s must be a table of \"path/under/docs\" = \"module\"", retrieval.ErrConfig, path, modulesKey)
	}
	c.ModulePrefixes = map[string]string{}
	for prefix, v := range tbl {
		name, ok := v.(string)
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(prefix) == "" {
			return fmt.Errorf("%w: %s: %s: %q must map a folder under docs to a module name (a string), e.g. \"modules/module-1\" = \"ros2\"", retrieval.ErrConfig, path, modulesKey, prefix)
		}
		c.ModulePrefixes[prefix] = strings.TrimSpace(name)
	}
	return nil
}

// flattenTOML records every key of a decoded document under its dotted
// name ("retrieval.top_k"); tables are recorded too, under their own name.
func flattenTOML(prefix string, tbl map[string]any, out map[string]any) {
	for k, v := range tbl {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			if name == "mapping" {
				out[name] = v
				continue
			}
			flattenTOML(name, sub, out)
			continue
		}
		out[name] = v
	}
}

// withoutQuoted replaces quoted text in a parser's message ('…' or "…"),
// which may be part of a value, with "…": errors about configuration
// sources never echo a value.
func withoutQuoted(msg string) string {
	var b strings.Builder
	var quote rune
	for _, r := range msg {
		switch {
		case quote != 0 && r == quote:
			quote = 0
			b.WriteString("…")
			b.WriteRune(r)
		case quote != 0:
		case r == '\'' || r == '"':
			quote = r
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if quote != 0 {
		b.WriteString("…")
	}
	return b.String()
}
