package embed

import (
	"bytes"
	"context"
	"errors"
	"testing"
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
