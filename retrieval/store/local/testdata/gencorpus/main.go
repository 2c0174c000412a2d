// Command gencorpus writes a generated Docusaurus docs folder for scale
// benchmarks of `ragscope index` and `ragscope --index F query`: PAGES pages
// of ten sections each (so about 10*PAGES chunks), in modules of 20
// chapters, with prose drawn deterministically from the demo textbook's
// words plus a per-page topic word (package gencorpus).
//
//	go run ./retrieval/store/local/testdata/gencorpus -pages 1000 -out /tmp/book10k
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"ragscope/retrieval/store/local/internal/gencorpus"
)

func main() {
	pages := flag.Int("pages", 1000, "number of pages (about 10 chunks each)")
	out := flag.String("out", "", "folder to create; the docs go in OUT/docs")
	src := flag.String("words", "retrieval/store/local/demo/site/docs", "markdown folder the vocabulary is taken from")
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
	words, err := gencorpus.Vocabulary(os.DirFS(src), ".")
	if err != nil {
		return err
	}
	return gencorpus.Generate(words, pages, seed, "docs", func(name string, data []byte) error {
		p := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	})
}
