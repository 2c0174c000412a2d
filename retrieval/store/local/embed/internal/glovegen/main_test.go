package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	// Four plain words, one punctuation entry and one word with a hyphen; the
	// extra list asks for a rare word and one the vocabulary lacks.
	src := `{"precision":8,"dimensions":2,"size":6,
"words":["the",",","robot","x-ray","gazebo","zebra"],
"vectors":{"the":[0.5,-1.27,1.4,0],",":[1,1,1,1],"robot":[0,0,0,2],
"x-ray":[1,2,2,3],"gazebo":[2.54,1,2.7,4],"zebra":[1,1,1.4,5]}}`
	if err := os.WriteFile(in, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(dir, "extra.txt")
	if err := os.WriteFile(extra, []byte("# domain words\nGazebo\nnotaword\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	if err := run(in, out, extra, 2); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if string(b[:8]) != magic || le.Uint32(b[8:]) != 3 || le.Uint32(b[12:]) != 2 {
		t.Fatalf("bad header % x", b[:16])
	}
	off := 16
	var words []string
	for range 3 {
		l := int(b[off])
		words = append(words, string(b[off+1:off+1+l]))
		off += 1 + l
	}
	if words[0] != "the" || words[1] != "robot" || words[2] != "gazebo" {
		t.Fatalf("words %q, want the, robot, gazebo", words)
	}
	for i, want := range []uint32{0, 2, 4} {
		if r := le.Uint32(b[off+4*i:]); r != want {
			t.Errorf("rank of %q = %d, want %d", words[i], r, want)
		}
	}
	off += 12
	scale := math.Float32frombits(le.Uint32(b[off:]))
	off += 12
	vecs := b[off:]
	if len(vecs) != 6 {
		t.Fatalf("%d vector bytes, want 6", len(vecs))
	}
	// "the" = (0.5, -1.27): scale 0.01, components 50 and -127.
	if math.Abs(float64(scale)-0.01) > 1e-7 || int8(vecs[0]) != 50 || int8(vecs[1]) != -127 {
		t.Errorf("the: scale %v, components %d %d", scale, int8(vecs[0]), int8(vecs[1]))
	}
	// "robot" is all zeros: scale 0, components 0.
	if vecs[2] != 0 || vecs[3] != 0 {
		t.Errorf("robot: components %d %d", int8(vecs[2]), int8(vecs[3]))
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, []byte(`{"dimensions":2,"words":["a"],"vectors":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(in, filepath.Join(dir, "out.bin"), "", 10); err == nil {
		t.Error("run accepted a word with no vector")
	}
	if err := run(filepath.Join(dir, "missing.json"), filepath.Join(dir, "out.bin"), "", 10); err == nil {
		t.Error("run accepted a missing input")
	}
}
