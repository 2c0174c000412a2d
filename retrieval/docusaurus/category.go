package docusaurus

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"gopkg.in/yaml.v3"

	"ragscope/internal/readlimit"
)

// Category is what ragscope reads of a folder's _category_.json (or .yml,
// .yaml): its sidebar label and its link.
type Category struct {
	// Source is the category file's path in the file system read.
	Source string
	Label  string `yaml:"label"`
	Link   struct {
		// Type is "generated-index", "doc" or empty.
		Type string `yaml:"type"`
		Slug string `yaml:"slug"`
	} `yaml:"link"`
}

// categoryFiles are the names Docusaurus reads, in its order.
var categoryFiles = [...]string{"_category_.json", "_category_.yml", "_category_.yaml"}

// ReadCategory reads the category file of dir in fsys. It returns false
// and no error when dir has none; a file that does not parse is an error
// naming it.
func ReadCategory(fsys fs.FS, dir string) (Category, bool, error) {
	for _, name := range categoryFiles {
		p := path.Join(dir, name)
		b, err := readlimit.ReadFS(fsys, p, readlimit.SiteFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Category{}, false, fmt.Errorf("%s: %w", p, err)
		}
		cat := Category{Source: p}
		// YAML is a superset of JSON: one parser for both.
		if err := yaml.Unmarshal(b, &cat); err != nil {
			return Category{}, false, fmt.Errorf("%s: %w", p, err)
		}
		return cat, true, nil
	}
	return Category{}, false, nil
}
