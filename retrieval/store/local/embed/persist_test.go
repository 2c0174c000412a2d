package embed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"unsafe"
)

func TestRestoreEmbedsExactlyAsFitted(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 40, 600} { // 600 > 411: pivots and hashed rest
		docs := syntheticDocs(n, 60)
		m := New(docs)
		state, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		again, _ := New(docs).MarshalBinary()
		if !bytes.Equal(state, again) {
			t.Errorf("%d docs: the same fit gives different state", n)
		}
		r, err := Restore(state)
		if err != nil {
			t.Fatalf("%d docs: %v", n, err)
		}
		texts := append([]string{"how do robots walk on two legs?", "rclpy node urdf"}, docs[:min(n, 5)]...)
		want, _ := m.Embed(ctx, texts)
		got, err := r.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					t.Fatalf("%d docs: text %d dimension %d: restored %v, fitted %v", n, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
}

func TestRestoreRejectsDamagedState(t *testing.T) {
	state, err := New(syntheticDocs(500, 40)).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"empty":     nil,
		"header":    append([]byte("XXXXXXXX"), state[8:]...),
		"truncated": state[:len(state)/2],
		"trailing":  append(bytes.Clone(state), 0),
	}
	for cut := 8; cut < len(state); cut += len(state) / 97 {
		bad["cut"] = state[:cut]
		if _, err := Restore(bad["cut"]); !errors.Is(err, ErrBadState) {
			t.Errorf("cut at %d: err = %v", cut, err)
		}
	}
	for name, b := range bad {
		if _, err := Restore(b); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: err = %v, want ErrBadState", name, err)
		}
	}
}

// FuzzRestore: arbitrary state gives a model or an error, never a panic,
// and a restored model embeds without panicking.
func FuzzRestore(f *testing.F) {
	state, _ := New(syntheticDocs(30, 20)).MarshalBinary()
	f.Add(state)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Restore(b)
		if err != nil {
			return
		}
		if _, err := m.Embed(context.Background(), []string{"walking robots"}); err != nil {
			t.Fatal(err)
		}
		// Damaged postings give an error, never a panic.
		if _, err := m.LexicalCosines(context.Background(), "walking robots"); err != nil && !errors.Is(err, ErrBadState) {
			t.Fatal(err)
		}
	})
}

func BenchmarkRestore(b *testing.B) {
	state, _ := New(syntheticDocs(2000, 200)).MarshalBinary()
	b.SetBytes(int64(len(state)))
	for b.Loop() {
		if _, err := Restore(state); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStateSizeBoundsTheState checks that MarshalBinary's buffer is sized
// once: stateSize is at least the state's length (and not far above).
func TestStateSizeBoundsTheState(t *testing.T) {
	docs, _ := devCorpus()
	for _, corpus := range [][]string{nil, docs[:3], docs} {
		m := New(corpus)
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.stateSize(); got < len(b) || got > len(b)+256 {
			t.Errorf("%d documents: stateSize %d for a state of %d bytes", len(corpus), got, len(b))
		}
	}
}

// TestWriteStateStreamsMarshalBinary checks that the streamed state is
// MarshalBinary's, byte for byte, that StateLen gives its length, for a
// projected and a hashed model, and that a write error is returned.
func TestWriteStateStreamsMarshalBinary(t *testing.T) {
	for _, docs := range [][]string{syntheticDocs(40, 30), syntheticDocs(600, 30)} {
		m := New(docs)
		want, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.WriteState(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%d docs: WriteState wrote %d bytes unlike MarshalBinary's %d", len(docs), b.Len(), len(want))
		}
		if m.StateLen() != len(want) {
			t.Errorf("%d docs: StateLen %d, want %d", len(docs), m.StateLen(), len(want))
		}
		if _, err := Restore(b.Bytes()); err != nil {
			t.Errorf("%d docs: restore the streamed state: %v", len(docs), err)
		}
		if err := m.WriteState(&failAfter{n: len(want) / 2}); !errors.Is(err, errDiskFull) {
			t.Errorf("%d docs: write error: got %v", len(docs), err)
		}
	}
}

var errDiskFull = errors.New("disk full")

// failAfter accepts writes until n bytes have been written, then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// offsetIn is where sub, a subslice of b, starts in b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }

// TestRestoredPostingsAreCheckedWhenRead: damage in the postings does not
// fail Restore (a load does not read them) but fails the first question
// that reads the damaged block, with ErrBadState; damage anywhere else
// fails Restore.
func TestRestoredPostingsAreCheckedWhenRead(t *testing.T) {
	ctx := context.Background()
	docs := syntheticDocs(600, 60)
	state, err := New(docs).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	good, err := Restore(state)
	if err != nil {
		t.Fatal(err)
	}
	lazy := good.lex.lazy
	if lazy == nil || len(lazy.docSums) < 3 {
		t.Fatalf("want a restored table with several postings blocks, got %+v", lazy)
	}
	// Every question reads its own blocks only, and sound ones pass.
	for _, d := range docs[:20] {
		if _, err := good.LexicalCosines(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := lazy.check(0, int32(len(good.lex.doc))); err != nil {
		t.Fatalf("sound postings: %v", err)
	}

	// The postings' offsets in state hold in every copy of it.
	docAt, wAt := offsetIn(state, lazy.doc), offsetIn(state, lazy.w)
	sumsAt := offsetIn(state, asBytes(lazy.docSums))
	for name, at := range map[string]int{"doc": docAt + 2*postingsBlock + 5, "w": wAt + 1} {
		bad := bytes.Clone(state)
		bad[at] ^= 0x40
		m, err := Restore(bad)
		if err != nil {
			t.Fatalf("%s: Restore read the postings: %v", name, err)
		}
		var found error
		for _, d := range docs {
			if _, err := m.LexicalCosines(ctx, d); err != nil {
				found = err
				break
			}
		}
		if !errors.Is(found, ErrBadState) {
			t.Errorf("%s: damaged postings: err = %v, want ErrBadState", name, found)
		}
	}

	// An entry naming no document, with its block's checksum made to
	// match, is refused too: never an index out of range.
	bad := bytes.Clone(state)
	binary.LittleEndian.PutUint32(bad[docAt+8:], 1e6)
	binary.LittleEndian.PutUint32(bad[sumsAt:], crc32.Checksum(bad[docAt:docAt+postingsBlock], crcTable))
	crc := crc32.Update(0, crcTable, bad[:docAt])
	crc = crc32.Update(crc, crcTable, bad[docAt+len(lazy.doc):wAt])
	crc = crc32.Update(crc, crcTable, bad[wAt+len(lazy.w):len(bad)-4])
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc)
	m, err := Restore(bad)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if err := m.lex.lazy.check(0, 4); !errors.Is(err, ErrBadState) {
		t.Errorf("entry out of range: err = %v, want ErrBadState", err)
	}

	// Damage outside the postings fails Restore itself.
	for _, at := range []int{docAt - 100, wAt - 3, len(state) - 40} {
		bad := bytes.Clone(state)
		bad[at] ^= 0x01
		if _, err := Restore(bad); !errors.Is(err, ErrBadState) {
			t.Errorf("byte %d of %d damaged: err = %v, want ErrBadState", at, len(state), err)
		}
	}
}

// asBytes is v's memory as bytes (v shares the state's, little-endian).
func asBytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}
