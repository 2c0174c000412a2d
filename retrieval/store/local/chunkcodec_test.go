package local

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestChunkCodecRoundTrip(t *testing.T) {
	chunks := []retrieval.Chunk{
		{ID: "a", Text: "Servo motors.", DocPath: "docs/a.md", Title: "A", Breadcrumb: []string{"A", "Servos"},
			ChunkIndex: retrieval.IntPtr(0), TotalChunks: retrieval.IntPtr(2), Tags: []string{"hw", "motors"},
			Extra: map[string]string{"lang": "en", "author": "x"}, ContentHash: "h1", Module: "m1", Chapter: "c1"},
		{ID: "b", Text: "", DocPath: "docs/a.md", Title: "A", ChunkIndex: retrieval.IntPtr(-3)},
		{ID: "c", Text: "ünïcode \x00 bytes", URL: "https://x.io/a#b", ContentType: "code"},
	}
	got, err := decodeChunks(encodeChunks(chunks))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, chunks) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, chunks)
	}
	if got, err := decodeChunks(encodeChunks(nil)); err != nil || len(got) != 0 {
		t.Errorf("no chunks: %v %v", got, err)
	}
}

// TestChunkCodecDamaged cuts and flips the section: every damage is an
// error or a decode, never a panic.
func TestChunkCodecDamaged(t *testing.T) {
	b := encodeChunks([]retrieval.Chunk{{ID: "a", Text: "x", Tags: []string{"t"}, Extra: map[string]string{"k": "v"}}})
	for n := range len(b) {
		if _, err := decodeChunks(b[:n]); err == nil && n < len(b) {
			// A cut inside the blob can still decode (shorter strings are
			// caught by the offsets); a cut in the words cannot.
			if n < len(b)-4 {
				t.Errorf("cut at %d of %d decoded", n, len(b))
			}
		}
	}
	for i := range b {
		d := append([]byte(nil), b...)
		d[i] ^= 0xff
		if _, err := decodeChunks(d); err != nil && !errors.Is(err, errChunks) {
			t.Errorf("flip at %d: %v", i, err)
		}
	}
}

// TestChunkCodecRefusesDuplicateIDs: a loaded index relies on the section
// to hold unique chunk IDs (it does not check them again).
func TestChunkCodecRefusesDuplicateIDs(t *testing.T) {
	b := encodeChunks([]retrieval.Chunk{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}, {ID: "a", Text: "z"}})
	if _, err := decodeChunks(b); !errors.Is(err, errChunks) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("duplicate ids: err = %v", err)
	}
}
