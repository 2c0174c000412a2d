// Command gencorpus writes a generated Docusaurus docs folder for scale
// benchmarks of `ragscope index` and `ragscope --index F query`: PAGES pages
// of ten sections each (so about 10*PAGES chunks), in modules of 20
// chapters, with prose drawn deterministically from the demo textbook's
// words plus a per-page topic word, so that pages differ lexically the way
// a real book's do.
//
//	go run ./retrieval/local/testdata/gencorpus -pages 1000 -out /tmp/book10k
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

func main() {
	pages := flag.Int("pages", 1000, "number of pages (about 10 chunks each)")
	out := flag.String("out", "", "folder to create; the docs go in OUT/docs")
	src := flag.String("words", "retrieval/local/demo/site/docs", "markdown folder the vocabulary is taken from")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out FOLDER is required")
		os.Exit(2)
	}
	if err := run(*out, *src, *pages, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(out, src string, pages int, seed uint64) error {
	words, err := vocabulary(src)
	if err != nil {
		return err
	}
	if len(words) < 100 {
		return fmt.Errorf("only %d words in %s", len(words), src)
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
		dir := filepath.Join(out, "docs", fmt.Sprintf("module-%d", module))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
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
		name := filepath.Join(dir, fmt.Sprintf("%02d-chapter-%d.md", chapter, chapter))
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// vocabulary lists the distinct lower-case words of the markdown under
// dir, most frequent first (ties alphabetical), for a stable Zipf draw.
func vocabulary(dir string) ([]string, error) {
	counts := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
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

func capitalize(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
