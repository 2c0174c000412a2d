package embed

import (
	_ "embed" // for the GloVe table
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"ragscope/retrieval/store/local/internal/flat"
)

// gloveSHA256 is the SHA-256 of data/glove50k.bin, as recorded in
// data/README.md. A test keeps the two and the embedded file in agreement.
const gloveSHA256 = "ccf0130ada42390dccd87fabfd85acc6b433b830155953cc784b967fcb0c47a0"

// gloveMagic opens data/glove50k.bin; see internal/glovegen for the layout.
const gloveMagic = "RSGLV001"

// gloveData is the quantised GloVe table written by internal/glovegen.
//
//go:embed data/glove50k.bin
var gloveData []byte

// loadGlove decodes gloveData once. Only the word index and the scales are
// decoded; the int8 components stay in gloveData and are dequantised on use.
var loadGlove = sync.OnceValues(func() (*gloveTable, error) {
	return decodeGlove(gloveData)
})

// gloveTable is a read-only view of the decoded GloVe table.
type gloveTable struct {
	dim int
	// data is the table's bytes; words[r] is where row r's word lies in
	// it (a length byte, then the word).
	data  []byte
	words []uint32
	// slots is an open-addressing hash table of the rows by their words
	// (-1: empty), a power of two long and at most half full, probed
	// linearly. Flat, so a start builds no map of 50,000 strings.
	slots  []int32
	seed   maphash.Seed
	ranks  []uint32  // row -> frequency rank in the source vocabulary
	scales []float32 // row -> dequantisation scale
	vecs   []byte    // row-major int8 components, rows*dim
}

// decodeGlove decodes the table in b. The table shares b's memory (the
// components and the words of the index): b must not change after.
func decodeGlove(b []byte) (*gloveTable, error) {
	le := binary.LittleEndian
	if len(b) < 16 || string(b[:8]) != gloveMagic {
		return nil, errors.New("glove table: bad header")
	}
	n := int(le.Uint32(b[8:12]))
	dim := int(le.Uint32(b[12:16]))
	if n <= 0 || dim <= 0 || dim > 4096 || n > len(b) {
		return nil, fmt.Errorf("glove table: bad size %d x %d", n, dim)
	}
	size := 1
	for size < 2*n {
		size *= 2
	}
	t := &gloveTable{
		dim:    dim,
		data:   b,
		words:  make([]uint32, n),
		slots:  make([]int32, size),
		seed:   maphash.MakeSeed(),
		ranks:  make([]uint32, n),
		scales: make([]float32, n),
	}
	for i := range t.slots {
		t.slots[i] = -1
	}
	off := 16
	for i := 0; i < n; i++ {
		if off >= len(b) {
			return nil, errors.New("glove table: truncated word list")
		}
		l := int(b[off])
		if off+1+l > len(b) {
			return nil, errors.New("glove table: truncated word list")
		}
		t.words[i] = uint32(off)
		t.insert(int32(i))
		off += 1 + l
	}
	if len(b)-off != n*(4+4+dim) {
		return nil, fmt.Errorf("glove table: body is %d bytes, want %d", len(b)-off, n*(8+dim))
	}
	for i := range t.ranks {
		t.ranks[i] = le.Uint32(b[off:])
		off += 4
	}
	for i := range t.scales {
		t.scales[i] = math.Float32frombits(le.Uint32(b[off:]))
		off += 4
	}
	t.vecs = b[off:]
	return t, nil
}

// word is row r's word (sharing the table's memory).
func (t *gloveTable) word(r int32) string {
	o := t.words[r]
	return flat.String(t.data[o+1 : o+1+uint32(t.data[o])])
}

// rows is the number of words in the table.
func (t *gloveTable) rows() int { return len(t.words) }

// slot is where word's row is in slots, or the empty slot where it would go.
func (t *gloveTable) slot(word string) int {
	mask := uint64(len(t.slots) - 1)
	i := maphash.String(t.seed, word) & mask
	for t.slots[i] >= 0 && t.word(t.slots[i]) != word {
		i = (i + 1) & mask
	}
	return int(i)
}

// insert adds row r under its word; a word met again takes the later row.
func (t *gloveTable) insert(r int32) { t.slots[t.slot(t.word(r))] = r }

// lookup returns the row of word, or -1.
func (t *gloveTable) lookup(word string) int32 { return t.slots[t.slot(word)] }

// addScaled adds w times the vector of row r to acc.
func (t *gloveTable) addScaled(acc []float32, r int32, w float32) {
	s := w * t.scales[r]
	row := t.vecs[int(r)*t.dim : int(r+1)*t.dim]
	acc = acc[:len(row)]
	for i, q := range row {
		acc[i] += s * float32(int8(q))
	}
}
