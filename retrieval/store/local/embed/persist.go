package embed

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"slices"
	"sync/atomic"

	"ragscope/retrieval/store/local/internal/flat"
)

// stateMagic opens a fitted model's saved state; bump its number whenever
// the layout below changes.
const stateMagic = "RSEMB003"

// postingsBlock is the length in bytes of the blocks of the lexical
// postings (lexTable.doc and .w) that have a checksum of their own.
const postingsBlock = 4 << 10

// crcTable is the checksums' polynomial (IEEE: carry-less multiplication
// makes it the fastest in Go).
var crcTable = crc32.IEEETable

// ErrBadState is returned by Restore for state that is damaged or was
// saved by another version of the model.
var ErrBadState = errors.New("embedder state is damaged or from another ragscope version")

// MarshalBinary saves everything New fitted (IDF, lexical projection,
// corpus word frequencies, common component) so that Restore gives a model
// that embeds exactly as this one without refitting. Little-endian, maps in
// key order: the same model gives the same bytes.
//
// The state checks itself. It ends with a CRC-32 of everything but the
// lexical postings, which Restore verifies; the postings, nine tenths of a
// large corpus's state and almost all unread by any one question, have a
// CRC-32 per postingsBlock bytes instead, verified the first time a
// question reads them (lexTable.check). A load therefore never reads the
// whole state, and nothing damaged is ever used.
func (m *Model) MarshalBinary() ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, m.stateSize()))
	if err := m.WriteState(b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// StateLen is the length of the state MarshalBinary returns and WriteState
// writes.
func (m *Model) StateLen() int {
	e := &stateEncoder{}
	m.encodeState(e)
	return e.n
}

// WriteState writes the state MarshalBinary returns to w, a block at a
// time: a large corpus's state, hundreds of megabytes, is not copied whole.
func (m *Model) WriteState(w io.Writer) error {
	e := &stateEncoder{w: w, buf: make([]byte, 0, 1<<16)}
	m.encodeState(e)
	return e.err
}

// encodeState gives e the state, in order.
func (m *Model) encodeState(e *stateEncoder) {
	le := binary.LittleEndian
	e.raw([]byte(stateMagic))
	e.string(modelName)
	e.u32(uint32(m.cfg.lexDim))
	e.u32(uint32(m.docs))
	e.u32(math.Float32bits(m.unseenIDF))
	t := m.lex
	if t == nil {
		t = &lexTable{start: []int32{0}}
	}
	e.uint64s(t.keys)
	e.float32s(t.idf)
	e.int32s(t.start)
	var docSums, wSums blockSums
	e.lazy = &docSums
	e.int32s(t.doc)
	e.lazy = &wSums
	e.float32s(t.w)
	e.lazy = nil
	defer e.trailer(&docSums, 4*len(t.doc), &wSums, 4*len(t.w))
	words := slices.Sorted(maps.Keys(m.pCorpus))
	e.u32(uint32(len(words)))
	for _, w := range words {
		e.string(w)
		e.u32(math.Float32bits(m.pCorpus[w]))
	}
	e.float32s(m.pc)
	if m.proj == nil {
		e.raw([]byte{0})
		return
	}
	p := m.proj
	e.raw([]byte{1})
	e.u32(uint32(p.rank))
	e.u32(uint32(len(p.l)))
	for _, x := range p.l {
		e.raw(le.AppendUint64(nil, math.Float64bits(x)))
	}
	ids := slices.SortedFunc(maps.Keys(p.pivots.ids), func(a, c uint64) int { return cmp.Compare(p.pivots.ids[a], p.pivots.ids[c]) })
	e.uint64s(ids)
	e.int32s(p.pivots.start)
	e.int32s(p.pivots.vec)
	e.float32s(p.pivots.w)
}

// trailer writes the end of the state: the postings' block size and
// checksums (of docLen and wLen bytes), then the CRC-32 of every other byte.
func (e *stateEncoder) trailer(docSums *blockSums, docLen int, wSums *blockSums, wLen int) {
	e.u32(postingsBlock)
	sums := func(s *blockSums, n int) {
		all := s.done()
		e.array(blocks(n), 4, func(b []byte, lo, hi int) []byte {
			for _, x := range all[lo:hi] {
				b = binary.LittleEndian.AppendUint32(b, x)
			}
			return b
		})
	}
	sums(docSums, docLen)
	sums(wSums, wLen)
	e.u32(e.crc)
}

// blocks is the number of postingsBlock blocks of n bytes.
func blocks(n int) int { return (n + postingsBlock - 1) / postingsBlock }

// blockSums is the CRC-32 of each postingsBlock bytes of a stream.
type blockSums struct {
	cur  uint32
	fill int
	sums []uint32
}

func (s *blockSums) add(b []byte) {
	for len(b) > 0 {
		n := min(len(b), postingsBlock-s.fill)
		s.cur = crc32.Update(s.cur, crcTable, b[:n])
		s.fill += n
		b = b[n:]
		if s.fill == postingsBlock {
			s.sums = append(s.sums, s.cur)
			s.cur, s.fill = 0, 0
		}
	}
}

// done returns the checksums, the last block's included.
func (s *blockSums) done() []uint32 {
	if s.fill > 0 {
		s.sums = append(s.sums, s.cur)
		s.cur, s.fill = 0, 0
	}
	return s.sums
}

// stateEncoder writes the state's layout to w, or only counts its bytes
// when w is nil. The first write error stops it.
type stateEncoder struct {
	w   io.Writer
	n   int // bytes so far, from the start of the state
	buf []byte
	err error
	// crc is the CRC-32 of the bytes written so far, but for those of
	// the postings, which lazy sums by blocks while it is set.
	crc  uint32
	lazy *blockSums
}

func (e *stateEncoder) raw(b []byte) {
	e.n += len(b)
	if e.w == nil {
		return
	}
	if e.lazy != nil {
		e.lazy.add(b)
	} else {
		e.crc = crc32.Update(e.crc, crcTable, b)
	}
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *stateEncoder) u32(x uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, x)) }

func (e *stateEncoder) string(s string) {
	e.u32(uint32(len(s)))
	e.raw([]byte(s))
}

// The arrays are a u32 count, padding to an 8-byte boundary (from the
// start of the state) and the numbers, so that a state read from an aligned
// buffer is used in place (package flat).

// array writes an array of n numbers of size bytes, appendTo appending
// numbers lo to hi.
func (e *stateEncoder) array(n, size int, appendTo func(b []byte, lo, hi int) []byte) {
	lazy := e.lazy
	e.lazy = nil
	defer func() { e.lazy = lazy }()
	e.u32(uint32(n))
	var zeros [flat.Align]byte
	e.raw(zeros[:flat.PadLen(e.n)])
	e.lazy = lazy
	if e.w == nil {
		e.n += n * size
		return
	}
	block := max(1, cap(e.buf)/size)
	for lo := 0; lo < n; lo += block {
		e.buf = appendTo(e.buf[:0], lo, min(lo+block, n))
		e.raw(e.buf)
	}
}

func (e *stateEncoder) float32s(v []float32) {
	e.array(len(v), 4, func(b []byte, lo, hi int) []byte { return flat.AppendFloat32s(b, v[lo:hi]) })
}

func (e *stateEncoder) uint64s(v []uint64) {
	e.array(len(v), 8, func(b []byte, lo, hi int) []byte { return flat.AppendUint64s(b, v[lo:hi]) })
}

func (e *stateEncoder) int32s(v []int32) {
	e.array(len(v), 4, func(b []byte, lo, hi int) []byte { return flat.AppendInt32s(b, v[lo:hi]) })
}

// stateSize is an upper bound of the length of MarshalBinary's state, so
// that it is built in one allocation: a large corpus's state is hundreds of
// megabytes, and growing it by appending would briefly need twice that.
func (m *Model) stateSize() int {
	const array = 4 + flat.Align // count and padding
	n := 64 + len(modelName) + 5*array + 1 + 2*array + 8 + 2*array
	if t := m.lex; t != nil {
		n += 8*len(t.keys) + 4*len(t.idf) + 4*len(t.start) + 4*len(t.doc) + 4*len(t.w)
		n += 4 * (blocks(4*len(t.doc)) + blocks(4*len(t.w)))
	}
	for w := range m.pCorpus {
		n += 8 + len(w)
	}
	n += 4 * len(m.pc)
	if p := m.proj; p != nil {
		n += 16 + 4*array + 8*len(p.l) + 8*len(p.pivots.ids) + 4*len(p.pivots.start) + 4*len(p.pivots.vec) + 4*len(p.pivots.w)
	}
	return n
}

// Restore makes a model from state saved by MarshalBinary, without
// refitting: the lexical table is read into flat slices and searched by
// binary search, so nothing is hashed or rebuilt. State from another model
// version or a damaged one gives an error matching ErrBadState.
func Restore(state []byte) (*Model, error) {
	m := &Model{cfg: defaultConfig()}
	m.glove, m.loadErr = loadGlove()
	r := &stateReader{b: state}
	if string(r.bytes(len(stateMagic))) != stateMagic {
		return nil, fmt.Errorf("%w: bad header", ErrBadState)
	}
	if name := r.string(); r.err == nil && name != modelName {
		return nil, fmt.Errorf("%w: saved by model %q, this is %q", ErrBadState, name, modelName)
	}
	if lex := int(r.u32()); r.err == nil && lex != m.cfg.lexDim {
		return nil, fmt.Errorf("%w: %d lexical dimensions, want %d", ErrBadState, lex, m.cfg.lexDim)
	}
	m.docs = int(r.u32())
	m.unseenIDF = math.Float32frombits(r.u32())
	t := &lexTable{}
	t.keys = r.uint64s()
	t.idf = r.float32s()
	t.start = r.int32s()
	docRaw := r.block(4)
	docAt := r.off - len(docRaw)
	wRaw := r.block(4)
	wAt := r.off - len(wRaw)
	t.doc, t.w = flat.Int32s(docRaw), flat.Float32s(wRaw)
	m.lex = t
	m.pCorpus = r.wordProbs()
	m.pc = r.float32s()
	if len(m.pc) == 0 {
		m.pc = nil
	} else if len(m.pc) != gloveDim && r.err == nil {
		r.err = fmt.Errorf("common component of length %d", len(m.pc))
	}
	if hasProj := r.bytes(1); r.err == nil && hasProj[0] == 1 {
		m.proj = r.projection(m.cfg.lexDim)
	}
	if block := r.u32(); r.err == nil && block != postingsBlock {
		r.err = fmt.Errorf("postings blocks of %d bytes, want %d", block, postingsBlock)
	}
	docSums, wSums := flat.Int32s(r.block(4)), flat.Int32s(r.block(4))
	sumAt := r.off
	sum := r.u32()
	if r.err == nil && r.off != len(r.b) {
		r.err = fmt.Errorf("%d bytes after the end", len(r.b)-r.off)
	}
	if r.err == nil && (len(docSums) != blocks(len(docRaw)) || len(wSums) != blocks(len(wRaw))) {
		r.err = errors.New("postings checksums")
	}
	if r.err == nil {
		// Everything but the postings, which are checked as they are read.
		crc := crc32.Update(0, crcTable, state[:docAt])
		crc = crc32.Update(crc, crcTable, state[docAt+len(docRaw):wAt])
		crc = crc32.Update(crc, crcTable, state[wAt+len(wRaw):sumAt])
		if crc != sum {
			r.err = errors.New("checksum mismatch")
		}
	}
	if r.err == nil {
		r.err = t.validate()
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadState, r.err)
	}
	t.lazy = &lazyPostings{docs: m.docs, doc: docRaw, w: wRaw, docSums: docSums, wSums: wSums,
		checked: make([]atomic.Uint64, (len(docSums)+63)/64)}
	return m, nil
}

// wordProbs reads the corpus's word probabilities: a count, then each
// word and its probability's bits.
func (r *stateReader) wordProbs() map[string]float32 {
	n := r.count(5)
	probs := make(map[string]float32, n)
	for range n {
		w := r.string()
		probs[w] = math.Float32frombits(r.u32())
	}
	return probs
}

// projection reads the lexical projection (its rank, its l values and
// its pivots' inverted index) and checks it against lexDim dimensions.
func (r *stateReader) projection(lexDim int) *projection {
	p := &projection{rank: int(r.u32())}
	nl := r.count(8)
	p.l = make([]float64, nl)
	for i := range p.l {
		p.l[i] = math.Float64frombits(r.u64())
	}
	keys := r.uint64s()
	ix := &invIndex{ids: make(map[uint64]int32, len(keys))}
	for i, k := range keys {
		ix.ids[k] = int32(i)
	}
	ix.start, ix.vec, ix.w = r.int32s(), r.int32s(), r.float32s()
	p.pivots = ix
	if r.err == nil {
		r.err = p.validate(lexDim)
	}
	return p
}

// validate checks the sizes and order LexicalCosines and the binary search
// rely on, so damaged state cannot make them index out of range (the
// postings' entries are checked block by block, by lazyPostings).
func (t *lexTable) validate() error {
	switch {
	case len(t.idf) != len(t.keys) || len(t.start) != len(t.keys)+1 || len(t.doc) != len(t.w):
		return errors.New("lexical table sizes")
	case t.start[0] != 0 || int(t.start[len(t.start)-1]) != len(t.doc):
		return errors.New("lexical postings offsets")
	}
	for i := 1; i < len(t.keys); i++ {
		if t.keys[i] <= t.keys[i-1] {
			return errors.New("lexical keys out of order")
		}
	}
	for i := 1; i < len(t.start); i++ {
		if t.start[i] < t.start[i-1] {
			return errors.New("lexical postings offsets")
		}
	}
	return nil
}

// postingsError is a damaged block of restored postings; it matches
// ErrBadState.
type postingsError struct {
	block int
	why   string
}

func (e *postingsError) Error() string {
	return fmt.Sprintf("its lexical postings block %d is damaged (%s)", e.block, e.why)
}

func (e *postingsError) Unwrap() error { return ErrBadState }

// lazyPostings checks a restored lexTable's postings a block at a time,
// the first time a question reads them: their checksums, and that every
// entry names a fitted document.
type lazyPostings struct {
	docs           int
	doc, w         []byte // the postings' bytes as saved
	docSums, wSums []int32
	// checked has a bit set for each block found sound.
	checked []atomic.Uint64
}

// check verifies the blocks holding postings lo to hi (entries of doc
// and w) that are not verified yet. Safe for concurrent use: a block two
// questions check at once is checked twice.
func (p *lazyPostings) check(lo, hi int32) error {
	if p == nil || hi <= lo {
		return nil
	}
	const per = postingsBlock / 4
	for b := int(lo) / per; b <= int(hi-1)/per; b++ {
		word, bit := b/64, uint64(1)<<(b%64)
		if p.checked[word].Load()&bit != 0 {
			continue
		}
		from, to := b*postingsBlock, min((b+1)*postingsBlock, len(p.doc))
		if crc32.Checksum(p.doc[from:to], crcTable) != uint32(p.docSums[b]) ||
			crc32.Checksum(p.w[from:to], crcTable) != uint32(p.wSums[b]) {
			return &postingsError{block: b, why: "checksum mismatch"}
		}
		for i := from; i < to; i += 4 {
			if d := int32(binary.LittleEndian.Uint32(p.doc[i:])); d < 0 || int(d) >= p.docs {
				return &postingsError{block: b, why: fmt.Sprintf("document %d of %d", d, p.docs)}
			}
		}
		p.checked[word].Or(bit)
	}
	return nil
}

// validate checks the sizes lexicalVector relies on, so damaged state
// cannot make it index out of range.
func (p *projection) validate(lexDim int) error {
	ix := p.pivots
	switch {
	case p.rank <= 0 || p.rank > lexDim-1:
		return fmt.Errorf("projection rank %d", p.rank)
	case len(p.l) != p.rank*p.rank:
		return errors.New("projection factor sizes")
	case len(ix.start) != len(ix.ids)+1 || len(ix.vec) != len(ix.w) || ix.start[0] != 0 || int(ix.start[len(ix.start)-1]) != len(ix.vec):
		return errors.New("pivot index sizes")
	}
	for i := 1; i < len(ix.start); i++ {
		if ix.start[i] < ix.start[i-1] {
			return errors.New("pivot index offsets")
		}
	}
	for _, v := range ix.vec {
		if v < 0 || int(v) >= p.rank {
			return errors.New("pivot index entries")
		}
	}
	for i := range p.rank {
		if p.l[i*p.rank+i] == 0 {
			return errors.New("singular projection factor")
		}
	}
	return nil
}

// stateReader reads MarshalBinary's layout; the first short read sets err
// and every later read returns zeros.
type stateReader struct {
	b   []byte
	off int
	err error
}

func (r *stateReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		if r.err == nil {
			r.err = errors.New("truncated")
		}
		return make([]byte, max(n, 0))
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *stateReader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *stateReader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }

// count reads a length whose items take at least size bytes each, and
// refuses one the rest of the state cannot hold.
func (r *stateReader) count(size int) int {
	n := int(r.u32())
	if r.err == nil && n > (len(r.b)-r.off)/size {
		r.err = fmt.Errorf("count %d exceeds the data", n)
	}
	if r.err != nil {
		return 0
	}
	return n
}

func (r *stateReader) string() string {
	return string(r.bytes(r.count(1)))
}

// block reads an array's count, its padding and its n*size bytes.
func (r *stateReader) block(size int) []byte {
	n := int(r.u32())
	r.bytes(flat.PadLen(r.off))
	if r.err == nil && n > (len(r.b)-r.off)/size {
		r.err = fmt.Errorf("count %d exceeds the data", n)
	}
	if r.err != nil {
		return nil
	}
	return r.bytes(n * size)
}

// The arrays share the state's memory when they can (package flat).
func (r *stateReader) uint64s() []uint64   { return flat.Uint64s(r.block(8)) }
func (r *stateReader) int32s() []int32     { return flat.Int32s(r.block(4)) }
func (r *stateReader) float32s() []float32 { return flat.Float32s(r.block(4)) }
