package goldenimport

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"ragscope/internal/splitmix"
)

// The near-duplicate search finds, for each question, the kept questions
// that could be within NearDivisor's edits of it without comparing it
// with every kept question. It rests on the pigeonhole principle (as in
// PassJoin, Li et al., VLDB 2011): a kept text of l runes is cut into
// dmax(l)+1 segments, where dmax(l) is the most edits any text of a
// length in its window may be from it; a text within d ≤ dmax(l) edits
// of it leaves one of its first d+1 segments untouched, and that segment
// appears in the text unchanged, shifted by no more than the edits
// before it. So each segment of each kept text is indexed under (the
// text's numbers, its length, the segment's number, its content), and a
// question looks up, for every length in its window, the substrings at
// the few places an untouched segment can be. Questions with other
// numbers never share a key: a million lines that differ only in a
// number each look up keys that hold nothing.
//
// The work per question is bounded, and the search finds exactly what
// comparing every pair finds (the same drops, naming the same earlier
// question) whenever the bounds are not reached: a question looks up at
// most maxProbes keys (reached only by normalised texts of more than
// about 170 runes: 40 runes take about 150 lookups, 100 runes 1,750);
// it skips a segment that more than maxBucket kept questions (of its
// numbers and one length) share at that place, too common to tell them
// apart — its duplicate is then found through another segment, one that
// the typo did not touch and fewer questions share; and it compares
// itself with at most maxCandidates distinct kept questions, the
// smallest buckets' first. Every drop is a true near duplicate whatever
// the bounds: each candidate is checked in full.
const (
	maxProbes     = 8192
	maxBucket     = 128
	maxCandidates = 1024
	// checkEvery is how many questions are read or compared between two
	// looks at the context.
	checkEvery = 4096
)

// entry is a kept question as the near search keeps it.
type entry struct {
	q      Question
	norm   string
	n      int // runes of norm
	sig    signature
	hist   histogram
	digits string
}

// histogram counts a normalised text's characters in 64 classes
// (letters and digits each their own, other characters shared), each
// count capped at 255. One edit changes the counts by at most 2 in all,
// so two texts whose counts differ by more than 2·d in all are more than
// d edits apart: a test that rules out texts sharing their bigrams but
// not their letters (a template with different words in it) at once.
type histogram [64]uint8

func newHistogram(rs []rune) histogram {
	var h histogram
	for _, r := range rs {
		var c int
		switch {
		case r >= 'a' && r <= 'z':
			c = int(r - 'a')
		case r >= '0' && r <= '9':
			c = 26 + int(r-'0')
		case r == ' ':
			c = 36
		default:
			c = 37 + int(uint32(r)*0x9E3779B1>>27)
		}
		if h[c] < 255 {
			h[c]++
		}
	}
	return h
}

// diff is the sum of the differences of the counts.
func (h *histogram) diff(o *histogram) int {
	n := 0
	for i := range h {
		n += abs(int(h[i]) - int(o[i]))
	}
	return n
}

// bucket is the kept segments under one key: the last entry of a chain
// (through nearIndex.next) and how many there are.
type bucket struct {
	last, size int32
}

// nearIndex finds kept questions near a new one.
type nearIndex struct {
	kept    []entry
	pre     []prefilter // per kept question
	buckets segmentTable
	next    []int32 // per indexed segment: the previous one under its key, or -1
	owner   []int32 // per indexed segment: its kept question

	// Scratch reused from question to question.
	prefix, pow []uint64
	found       []bucket
	cands       []int32
	seen        []uint32 // per kept question: the last query that took it as a candidate
	query       uint32
	runes       []rune
	prev, cur   []int32
}

// newNearIndex makes an index for qs (sized for all of them kept).
func newNearIndex(qs []Question) *nearIndex {
	segments := 0
	for _, q := range qs {
		segments += len(q.Text)/(NearDivisor-1) + 1
	}
	// The per-question and per-segment slices get their whole size at
	// once: grown by appending, a million questions copy their entries
	// over and over and leave the collector the old copies.
	return &nearIndex{
		buckets: newSegmentTable(segments + len(qs)),
		kept:    make([]entry, 0, len(qs)),
		pre:     make([]prefilter, 0, len(qs)),
		seen:    make([]uint32, 0, len(qs)),
		next:    make([]int32, 0, segments),
		owner:   make([]int32, 0, segments),
	}
}

// segmentTable maps keys to buckets by open addressing: most keys looked
// up are not there, and a miss costs one look at a slot (key and bucket
// side by side: one cache line).
type segmentTable struct {
	slots []slot
	n     int
}

type slot struct {
	key uint64 // 0: empty
	b   bucket
}

func newSegmentTable(n int) segmentTable {
	size := 1 << 10
	for size < 2*n {
		size <<= 1
	}
	return segmentTable{slots: make([]slot, size)}
}

// find is where key is, or the empty slot where it goes.
func (t *segmentTable) find(key uint64) *slot {
	mask := len(t.slots) - 1
	i := int(key) & mask
	for t.slots[i].key != 0 && t.slots[i].key != key {
		i = (i + 1) & mask
	}
	return &t.slots[i]
}

func (t *segmentTable) get(key uint64) (bucket, bool) {
	s := t.find(max(key, 1))
	return s.b, s.key != 0
}

func (t *segmentTable) put(key uint64, b bucket) {
	key = max(key, 1)
	s := t.find(key)
	if s.key == 0 {
		if 2*(t.n+1) > len(t.slots) {
			t.grow()
			s = t.find(key)
		}
		t.n++
		s.key = key
	}
	s.b = b
}

func (t *segmentTable) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	for _, s := range old {
		if s.key != 0 {
			*t.find(s.key) = s
		}
	}
}

// anyLength stands for every length in lengthKey: some kept question
// has the numbers.
const anyLength = -1

// prefilter is what the first test of a candidate reads, kept apart from
// the entries so that it stays in the cache: the bigram signature and the
// numbers' hash.
type prefilter struct {
	sig    signature
	digits uint64
}

// lengthKey is the key (in the index's table, beside the segments') that
// says some kept question has l runes and numbers that hash to digits.
func lengthKey(digits uint64, l int) uint64 {
	return splitmix.Mix64(digits*0xD6E8FEB86659FD93 + uint64(l) + 1<<62)
}

func (ix *nearIndex) hasLength(digits uint64, l int) bool {
	_, ok := ix.buckets.get(lengthKey(digits, l))
	return ok
}

// Dedup drops exact and near duplicates from qs, keeping the first of
// each group in input order, and returns the questions kept and the drops
// (each with the kept question it repeats). Exact duplicates have the
// same text; near duplicates the same normalised text (textnorm.Normalize: case,
// punctuation and spacing aside, "ROS2" and "ROS 2" alike), or one within
// NearDivisor's edits whose numbers are the same and whose other words are
// typos of its words. It stops with ctx's error when ctx is done.
func Dedup(ctx context.Context, qs []Question) ([]Question, []Drop, error) {
	var out []Question
	var drops []Drop
	exact := make(map[string]Question, len(qs))
	byNorm := make(map[string]Question, 2*len(qs)) // by normalised text, and by it without spaces
	ix := newNearIndex(qs)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := featureStream(fctx, qs)
	var chunk []features
	for i, q := range qs {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("drop duplicates: %w", err)
			}
		}
		if i%featureChunk == 0 {
			var ok bool
			if chunk, ok = <-stream; !ok {
				return nil, nil, fmt.Errorf("drop duplicates: %w", context.Cause(fctx))
			}
		}
		f := &chunk[i%featureChunk]
		if first, ok := exact[q.Text]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonExact, Of: first})
			continue
		}
		exact[q.Text] = q
		if first, ok := byNorm[f.norm]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		if first, ok := byNorm[f.joined]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		e := entry{q: q, norm: f.norm, n: len(f.rs), sig: f.sig, hist: f.hist, digits: f.digits}
		ix.hashPrefix(f.rs)
		if first, ok := ix.nearest(e, f.rs); ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		byNorm[f.norm], byNorm[f.joined] = q, q
		ix.add(e)
		out = append(out, q)
	}
	return out, drops, nil
}

// near reports whether k, a kept question, and e (whose normalised text
// is the runes rs) are near duplicates at most d edits apart (both in a
// length window of each other). The cheap tests come first.
func (ix *nearIndex) near(k, e *entry, rs []rune, d int) bool {
	if k.digits != e.digits || k.sig.diff(e.sig) > 4*d || k.hist.diff(&e.hist) > 2*d {
		return false
	}
	ix.runes = append(ix.runes[:0], []rune(k.norm)...)
	return ix.within(ix.runes, rs, d) && typos(strings.Fields(k.norm), strings.Fields(e.norm))
}

// within reports whether the edit distance of a and b is at most limit,
// as editdist.Within does, in the index's scratch rows.
func (ix *nearIndex) within(a, b []rune, limit int) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > limit {
		return false
	}
	const inf = int32(1 << 30)
	ix.prev = slices.Grow(ix.prev[:0], len(b)+1)[:len(b)+1]
	ix.cur = slices.Grow(ix.cur[:0], len(b)+1)[:len(b)+1]
	prev, cur := ix.prev, ix.cur
	for j := range prev {
		prev[j] = int32(j)
		if j > limit {
			prev[j] = inf
		}
	}
	lim := int32(limit)
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		// Cells outside the band stay inf: only the two beside it are read.
		cur[lo-1] = inf
		if i <= limit {
			cur[0] = int32(i)
		}
		if hi < len(b) {
			cur[hi+1] = inf
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := int32(1)
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			cur[j] = c
			best = min(best, c)
		}
		if best > lim {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= lim
}

// maxEdits is the most edits a text of l runes may be from a near
// duplicate of any length: NearDivisor's share of the longer one.
func maxEdits(l int) int {
	n := l
	for (n+1)-l <= (n+1)/NearDivisor {
		n++
	}
	return n / NearDivisor
}

// segment is the place and length of segment i of k of a text of l runes:
// the first k - l%k are l/k runes long, the others one more.
func segment(l, k, i int) (start, length int) {
	short := k - l%k
	if i < short {
		return i * (l / k), l / k
	}
	return short*(l/k) + (i-short)*(l/k+1), l/k + 1
}

const hashBase = 0x100000001b3

// hashPrefix fills ix.prefix with the polynomial hashes of rs's prefixes
// (and ix.pow with the base's powers), so any substring's hash is O(1).
func (ix *nearIndex) hashPrefix(rs []rune) {
	ix.prefix = append(ix.prefix[:0], 0)
	ix.pow = append(ix.pow[:0], 1)
	for i, r := range rs {
		ix.prefix = append(ix.prefix, ix.prefix[i]*hashBase+uint64(r)+1)
		ix.pow = append(ix.pow, ix.pow[i]*hashBase)
	}
}

// key is the index key of the substring [start, start+length) of the
// text last given to hashPrefix, as segment i of a kept text of l runes
// whose numbers hash to digits.
func (ix *nearIndex) key(digits uint64, l, i, start, length int) uint64 {
	h := ix.prefix[start+length] - ix.prefix[start]*ix.pow[length]
	return splitmix.Mix64(h ^ digits*0x9E3779B97F4A7C15 ^ uint64(l)<<40 ^ uint64(i)<<20)
}

func hashString(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= hashBase
	}
	return h
}

// add indexes e, kept, by its segments; the text's prefix hashes are
// those hashPrefix was last given.
func (ix *nearIndex) add(e entry) {
	id := int32(len(ix.kept))
	ix.kept = append(ix.kept, e)
	ix.seen = append(ix.seen, 0)
	digits := hashString(e.digits)
	ix.buckets.put(lengthKey(digits, e.n), bucket{})
	ix.buckets.put(lengthKey(digits, anyLength), bucket{})
	ix.pre = append(ix.pre, prefilter{sig: e.sig, digits: digits})
	dmax := maxEdits(e.n)
	if dmax == 0 {
		return
	}
	k := dmax + 1
	for i := range k {
		start, length := segment(e.n, k, i)
		key := ix.key(digits, e.n, i, start, length)
		b, _ := ix.buckets.get(key)
		if b.size == 0 {
			b.last = -1
		}
		ix.next = append(ix.next, b.last)
		ix.owner = append(ix.owner, id)
		ix.buckets.put(key, bucket{last: int32(len(ix.owner) - 1), size: b.size + 1})
	}
}

// nearest finds a kept question near e (whose text's prefix hashes are
// those hashPrefix was last given): of the lengths in e's window the
// shortest, and of those the first kept, as a pairwise scan finds it.
func (ix *nearIndex) nearest(e entry, rs []rune) (Question, bool) {
	n := e.n
	digits := hashString(e.digits)
	if !ix.hasLength(digits, anyLength) {
		return Question{}, false // no kept question has these numbers
	}
	probes, budget := 0, maxCandidates
	ix.query++
	for l := n - n/NearDivisor; l <= n+n/(NearDivisor-1)+1; l++ {
		d := max(n, l) / NearDivisor
		if d == 0 || abs(l-n) > d || !ix.hasLength(digits, l) {
			continue
		}
		k := maxEdits(l) + 1
		delta := n - l
		ix.found = ix.found[:0]
		// The first untouched segment i has at least i edits before it
		// (one in each earlier segment) and is shifted by s, so at least
		// max(i, |s|) edits lie before it and |delta-s| after it.
		for i := 0; i <= d && i < k; i++ {
			start, length := segment(l, k, i)
			for s := -d; s <= d; s++ {
				if max(i, abs(s))+abs(delta-s) > d || start+s < 0 || start+s+length > n {
					continue
				}
				if probes++; probes > maxProbes {
					break
				}
				if b, ok := ix.buckets.get(ix.key(digits, l, i, start+s, length)); ok {
					ix.found = append(ix.found, b)
				}
			}
		}
		if q, ok := ix.check(&e, digits, rs, d, &budget); ok {
			return q, true
		}
	}
	return Question{}, false
}

// check compares e with the kept questions of the buckets found, the
// smallest buckets first, within budget, in the order they were kept.
func (ix *nearIndex) check(e *entry, digits uint64, rs []rune, d int, budget *int) (Question, bool) {
	if len(ix.found) == 0 || *budget <= 0 {
		return Question{}, false
	}
	slices.SortFunc(ix.found, func(a, b bucket) int { return int(a.size - b.size) })
	ix.cands = ix.cands[:0]
	for _, b := range ix.found {
		if b.size > maxBucket {
			break // this and the rest: a segment too common to tell
		}
		for at := b.last; at >= 0 && *budget > 0; at = ix.next[at] {
			if id := ix.owner[at]; ix.seen[id] != ix.query {
				ix.seen[id] = ix.query
				ix.cands = append(ix.cands, id)
				*budget--
			}
		}
	}
	slices.Sort(ix.cands)
	for _, id := range ix.cands {
		if p := &ix.pre[id]; p.digits != digits || p.sig.diff(e.sig) > 4*d {
			continue
		}
		if k := &ix.kept[id]; ix.near(k, e, rs, d) {
			return k.q, true
		}
	}
	return Question{}, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
