package config

import (
	"fmt"
	"sort"
	"strings"

	"ragscope/retrieval"
)

// setupsKey is the ragscope.toml table of named setups: [setups.NAME]
// takes the keys of the file's top level.
const setupsKey = "setups"

// applySetup applies the [setups.NAME] table over the configuration. A
// setup that names a local index or docs folder (and no backend or Qdrant
// URL of its own) is a local setup, whatever the top level or QDRANT_URL
// say, and its source replaces the other one; one that names a Qdrant
// collection or URL likewise picks Qdrant.
func (c *Config) applySetup(name string) error {
	f := c.file
	raw, ok := f.setup(name)
	if !ok {
		return c.UnknownSetup("--setup", name)
	}
	tbl, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s line %d: setups.%s must be a table, e.g. [setups.%s]", retrieval.ErrConfig, f.path, f.line(setupsKey+"."+name), name, name)
	}
	has := func(keys ...string) bool {
		vals := map[string]any{}
		flattenTOML("", tbl, vals)
		for _, k := range keys {
			if _, ok := vals[k]; ok {
				return true
			}
		}
		return false
	}
	if err := c.applyTable(f, setupsKey+"."+name, tbl); err != nil {
		return err
	}
	if !has("backend") {
		switch {
		case has("local.index", "local.docs") && !has("qdrant.url", "qdrant.collection"):
			c.Backend = BackendLocal
		case has("qdrant.url", "qdrant.collection") && !has("local.index", "local.docs") && c.QdrantURL != "":
			c.Backend = BackendQdrant
		}
	}
	// A setup names one source: its index replaces an inherited docs
	// folder, and its docs folder an inherited index.
	if has("local.index") && !has("local.docs") {
		c.DocsDir = ""
	}
	if has("local.docs") && !has("local.index") {
		c.IndexFile = ""
	}
	c.Setup = name
	return nil
}

// setup is f's [setups.NAME] table (false when f is nil or has none).
func (f *tomlFile) setup(name string) (any, bool) {
	if f == nil {
		return nil, false
	}
	raw, ok := f.setups[name]
	return raw, ok
}

// UnknownSetup is the configuration error for a setup name, given with
// flag ("--setup", "--vs"), that ragscope.toml does not define: it names
// the file and the setups it defines, or says no file was read.
func (c Config) UnknownSetup(flag, name string) error {
	f := c.file
	if f == nil {
		where := "no ragscope.toml was read"
		if c.File != "" {
			where = c.File + " defines no setups"
		}
		return fmt.Errorf("%w: %s %s: %s (add a [setups.%s] table)", retrieval.ErrConfig, flag, name, where, name)
	}
	return fmt.Errorf("%w: %s %s: no such setup in %s (%s)", retrieval.ErrConfig, flag, name, f.path, f.setupList())
}

// setupNames are the setups f defines, in the file's order.
func (f *tomlFile) setupNames() []string {
	names := make([]string, 0, len(f.setups))
	for n := range f.setups {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := f.line(setupsKey+"."+names[i]), f.line(setupsKey+"."+names[j])
		if li != lj {
			return li < lj
		}
		return names[i] < names[j]
	})
	return names
}

// setupList says which setups f defines, with their lines.
func (f *tomlFile) setupList() string {
	names := f.setupNames()
	if len(names) == 0 {
		return "it defines none: add a [setups.NAME] table"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s (line %d)", n, f.line(setupsKey+"."+n))
	}
	return "it defines " + strings.Join(parts, ", ")
}

// line is the line of a dotted key in the file: the key's own, else its
// closest enclosing table's (an inline table's keys), else 0.
func (f *tomlFile) line(key string) int {
	for k := key; k != ""; {
		if n, ok := f.lines[k]; ok {
			return n
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}

// SetupLine is the line of ragscope.toml where setup name is defined (0
// when unknown).
func (c Config) SetupLine(name string) int {
	if c.file == nil {
		return 0
	}
	return c.file.line(setupsKey + "." + name)
}

// keyLines maps each dotted key of a TOML document, tables included, to
// the line it is defined on (first definition). It follows table headers
// ([a.b], [[a]]) and dotted keys, skips multi-line strings and comments,
// and is only used to point errors at lines: the document itself is read
// by the TOML decoder.
func keyLines(data string) map[string]int {
	out := map[string]int{}
	table := ""
	inMulti := ""
	record := func(k string, n int) {
		for p := k; p != ""; {
			if _, ok := out[p]; !ok {
				out[p] = n
			}
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	for i, line := range strings.Split(data, "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Contains(t, inMulti) {
				inMulti = ""
			}
			continue
		}
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			h := strings.Trim(t, "[] \t")
			if j := strings.IndexByte(h, '#'); j >= 0 {
				h = strings.TrimRight(strings.TrimSpace(h[:j]), "]")
			}
			table = dottedKey(h)
			record(table, n)
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq <= 0 {
			continue
		}
		k := dottedKey(t[:eq])
		if table != "" {
			k = table + "." + k
		}
		record(k, n)
		v := strings.TrimSpace(t[eq+1:])
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(v, q) && strings.Count(v, q) == 1 {
				inMulti = q
			}
		}
	}
	return out
}

// dottedKey normalises a TOML key as written (a . "b" .c) to a.b.c.
func dottedKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
