package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/internal/flat"
)

// The chunks section of an index file is binary, not JSON: decoding JSON
// was most of a load's time. Every string is stored once in a table (a
// page's title, path and module repeat in each of its chunks) and chunks
// are records of u32 words naming strings:
//
//	u32 strings, u32 words, u32 chunks
//	u32 offsets[strings+1] into the blob
//	u32 words: per chunk, 12 string ids (id, text, url, doc path, page
//	  slug, title, section, heading id, module, chapter, content type,
//	  content hash), flags (1: chunk index, 2: total chunks), the two
//	  numbers, then counted lists: breadcrumb ids, tag ids, extra keys and
//	  values (a key's id then its value's, keys sorted)
//	blob: the strings' bytes
//
// Decoded strings share the file's memory: nothing is copied.

// chunkFields is the number of string fields at the start of a record.
const chunkFields = 12

func chunkStrings(c *retrieval.Chunk) [chunkFields]string {
	return [chunkFields]string{c.ID, c.Text, c.URL, c.DocPath, c.PageSlug, c.Title, c.Section, c.HeadingID, c.Module, c.Chapter, c.ContentType, c.ContentHash}
}

// encodeChunks returns the chunks section.
func encodeChunks(chunks []retrieval.Chunk) []byte {
	ids := map[string]uint32{}
	var strs []string
	id := func(s string) uint32 {
		if i, ok := ids[s]; ok {
			return i
		}
		i := uint32(len(strs))
		ids[s] = i
		strs = append(strs, s)
		return i
	}
	var words []uint32
	for i := range chunks {
		c := &chunks[i]
		for _, s := range chunkStrings(c) {
			words = append(words, id(s))
		}
		var flags, ci, tc uint32
		if c.ChunkIndex != nil {
			flags |= 1
			ci = uint32(int32(*c.ChunkIndex))
		}
		if c.TotalChunks != nil {
			flags |= 2
			tc = uint32(int32(*c.TotalChunks))
		}
		words = append(words, flags, ci, tc, uint32(len(c.Breadcrumb)))
		for _, s := range c.Breadcrumb {
			words = append(words, id(s))
		}
		words = append(words, uint32(len(c.Tags)))
		for _, s := range c.Tags {
			words = append(words, id(s))
		}
		words = append(words, uint32(2*len(c.Extra)))
		for _, k := range slices.Sorted(maps.Keys(c.Extra)) {
			words = append(words, id(k), id(c.Extra[k]))
		}
	}
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(strs)))
	b = le.AppendUint32(b, uint32(len(words)))
	b = le.AppendUint32(b, uint32(len(chunks)))
	off := uint32(0)
	b = le.AppendUint32(b, 0)
	for _, s := range strs {
		off += uint32(len(s))
		b = le.AppendUint32(b, off)
	}
	for _, w := range words {
		b = le.AppendUint32(b, w)
	}
	for _, s := range strs {
		b = append(b, s...)
	}
	return b
}

var errChunks = errors.New("chunks section damaged")

// decodeChunks reads the chunks section; b must not change afterwards
// (the strings share its memory).
func decodeChunks(b []byte) ([]retrieval.Chunk, error) {
	const head = 12
	if len(b) < head {
		return nil, errChunks
	}
	le := binary.LittleEndian
	ns, nw, nc := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:])), uint64(le.Uint32(b[8:]))
	if head+4*(ns+1+nw) > uint64(len(b)) || nc > nw/17 {
		// A record has at least 17 words.
		return nil, errChunks
	}
	offs := flat.Int32s(b[head : head+4*(ns+1)])
	words := flat.Int32s(b[head+4*(ns+1) : head+4*(ns+1+nw)])
	strs, err := chunkStringTable(offs, flat.String(b[head+4*(ns+1+nw):]))
	if err != nil {
		return nil, err
	}
	r := &chunkReader{
		words: words,
		strs:  strs,
		nums:  make([]int, 2*nc),
		// The encoder stores each distinct string once, so chunks share an
		// ID exactly when they share its string: a bit per string finds them.
		idSeen: make([]uint64, (ns+63)/64),
	}
	chunks := make([]retrieval.Chunk, nc)
	k := 0
	for ; r.p < len(r.words); k++ {
		if uint64(k) >= nc {
			return nil, errChunks
		}
		if err := r.chunk(&chunks[k], k); err != nil {
			return nil, err
		}
	}
	if uint64(k) != nc {
		return nil, errChunks
	}
	return chunks, nil
}

// chunkStringTable cuts the section's strings out of blob at their end
// offsets (offs[0] is 0, the rest never fall back nor pass its end).
func chunkStringTable(offs []int32, blob string) ([]string, error) {
	strs := make([]string, len(offs)-1)
	prev := int32(0)
	if offs[0] != 0 {
		return nil, errChunks
	}
	for i := range strs {
		end := offs[i+1]
		if end < prev || int(end) > len(blob) {
			return nil, errChunks
		}
		strs[i] = blob[prev:end]
		prev = end
	}
	return strs, nil
}

// chunkReader reads the records of a chunks section, word by word.
type chunkReader struct {
	words []int32
	// p is the next word's index.
	p    int
	strs []string
	// The lists and the numbers of all chunks are cut from a few large
	// slices (slab, nums) rather than allocated one by one.
	slab []string
	nums []int
	// idSeen has a bit per string, set once a chunk has it as its ID.
	idSeen []uint64
}

func (r *chunkReader) next() (uint32, bool) {
	if r.p >= len(r.words) {
		return 0, false
	}
	r.p++
	return uint32(r.words[r.p-1]), true
}

func (r *chunkReader) str() (string, bool) {
	w, ok := r.next()
	if !ok || int(w) >= len(r.strs) {
		return "", false
	}
	return r.strs[w], true
}

// list reads a counted list of strings.
func (r *chunkReader) list() ([]string, bool) {
	n, ok := r.next()
	if !ok || int(n) > len(r.words)-r.p {
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	if int(n) > len(r.slab) {
		r.slab = make([]string, max(int(n), 4096))
	}
	out := r.slab[:n:n]
	r.slab = r.slab[n:]
	for i := range out {
		if out[i], ok = r.str(); !ok {
			return nil, false
		}
	}
	return out, true
}

// chunk reads the k-th record into c.
func (r *chunkReader) chunk(c *retrieval.Chunk, k int) error {
	var f [chunkFields]string
	for i := range f {
		w, ok := r.next()
		if !ok || int(w) >= len(r.strs) {
			return errChunks
		}
		if i == 0 {
			if r.idSeen[w/64]&(1<<(w%64)) != 0 {
				return fmt.Errorf("%w: two chunks have the id %q", errChunks, r.strs[w])
			}
			r.idSeen[w/64] |= 1 << (w % 64)
		}
		f[i] = r.strs[w]
	}
	c.ID, c.Text, c.URL, c.DocPath, c.PageSlug, c.Title = f[0], f[1], f[2], f[3], f[4], f[5]
	c.Section, c.HeadingID, c.Module, c.Chapter, c.ContentType, c.ContentHash = f[6], f[7], f[8], f[9], f[10], f[11]
	flags, ok1 := r.next()
	ci, ok2 := r.next()
	tc, ok3 := r.next()
	if !ok1 || !ok2 || !ok3 || flags > 3 {
		return errChunks
	}
	if flags&1 != 0 {
		r.nums[2*k] = int(int32(ci))
		c.ChunkIndex = &r.nums[2*k]
	}
	if flags&2 != 0 {
		r.nums[2*k+1] = int(int32(tc))
		c.TotalChunks = &r.nums[2*k+1]
	}
	var ok bool
	if c.Breadcrumb, ok = r.list(); !ok {
		return errChunks
	}
	if c.Tags, ok = r.list(); !ok {
		return errChunks
	}
	kv, ok := r.list()
	if !ok || len(kv)%2 != 0 {
		return errChunks
	}
	if len(kv) > 0 {
		c.Extra = make(map[string]string, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			c.Extra[kv[i]] = kv[i+1]
		}
	}
	return nil
}
