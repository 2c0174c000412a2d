package local

import (
	"bytes"
	"context"
	"flag"
	"os"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite demo.idx from the demo's docs")

// TestDemoIndexIsFresh checks that the embedded demo index is exactly what
// building the demo's docs gives today, so the demo never serves a stale
// index; -update rewrites it.
func TestDemoIndexIsFresh(t *testing.T) {
	want, err := encodeDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("demo.idx", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(demoIndex, want) {
		t.Fatal("demo.idx is stale (the demo's docs, the chunker or the embedder changed): run go test ./retrieval/store/local -run TestDemoIndexIsFresh -update")
	}
}

// TestOpenDemoEqualsBuild checks the loaded demo against a fresh build:
// same chunks, same vectors, same answers.
func TestOpenDemoEqualsBuild(t *testing.T) {
	ctx := context.Background()
	got, gc, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, wc, err := buildDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.chunks, want.chunks) || !reflect.DeepEqual(got.vecs, want.vecs) || got.info != want.info {
		t.Error("the embedded demo index differs from a fresh build")
	}
	if gc.DocsBase != wc.DocsBase || gc.SiteURL != wc.SiteURL || gc.Embedder.Name() != wc.Embedder.Name() {
		t.Errorf("corpus: got %+v, want %+v", gc, wc)
	}
}
