// Package gencorpus generates Docusaurus docs for scale benchmarks and
// tests of the local index: pages of ten sections each (about 10 chunks a
// page), in modules of 20 chapters, with prose drawn deterministically from
// a vocabulary (the demo textbook's words) plus a per-page topic word, so
// that pages differ lexically the way a real book's do and share its words
// the way distractors would.
package gencorpus

import (
	"cmp"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"unicode"
)

// Vocabulary lists the distinct lower-case words (three letters or more)
// of the markdown under root in fsys, most frequent first (ties
// alphabetical), for a stable Zipf draw.
func Vocabulary(fsys fs.FS, root string) ([]string, error) {
	counts := map[string]int{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) > 2 {
				counts[w]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	return words, nil
}

// Generate calls write with the slash-separated path (under dir) and the
// markdown of each of pages pages drawn from words with seed: the same
// arguments give the same pages.
func Generate(words []string, pages int, seed uint64, dir string, write func(name string, data []byte) error) error {
	if len(words) < 100 {
		return fmt.Errorf("only %d words: need at least 100", len(words))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Zipf-like draw: common words often, rare ones seldom.
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	sentence := func(topic string) string {
		n := 8 + rng.IntN(12)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[zipf.Uint64()]
		}
		ws[rng.IntN(n)] = topic
		return capitalize(strings.Join(ws, " ")) + "."
	}
	for p := range pages {
		module, chapter := p/20+1, p%20+1
		topic := fmt.Sprintf("%s%d", words[rng.IntN(len(words))], p)
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Chapter %d.%d %s\ntags: [%s]\n---\n\n", module, chapter, topic, words[rng.IntN(200)])
		fmt.Fprintf(&b, "%s %s\n\n", sentence(topic), sentence(topic))
		for s := range 10 {
			fmt.Fprintf(&b, "## %s %s %d\n\n", capitalize(words[rng.IntN(len(words))]), topic, s+1)
			for range 2 + rng.IntN(3) {
				b.WriteString(sentence(topic) + " ")
			}
			b.WriteString("\n\n")
			if s%4 == 3 {
				fmt.Fprintf(&b, "```python\nimport %s\n%s.run()\n```\n\n", words[rng.IntN(len(words))], topic)
			}
		}
		name := path.Join(dir, fmt.Sprintf("module-%d", module), fmt.Sprintf("%02d-chapter-%d.md", chapter, chapter))
		if err := write(name, []byte(b.String())); err != nil {
			return err
		}
	}
	return nil
}

func capitalize(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
