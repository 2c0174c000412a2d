package app

import (
	"context"
	"testing"

	"ragscope/config"
)

// The picker's list of pages and sections is bounded: past the limit the
// walk stops and the list holds what it read.
func TestDocSourcesBounded(t *testing.T) {
	ctx := context.Background()
	be, err := (&Assembler{}).Open(ctx, FromConfig(config.Default()), Search)
	if err != nil {
		t.Fatal(err)
	}
	all, err := docSources(ctx, be.Walker, be.Pipeline.URLs, maxDocSources)
	if err != nil || len(all) < 50 {
		t.Fatalf("demo: %d entries, %v", len(all), err)
	}
	few, err := docSources(ctx, be.Walker, be.Pipeline.URLs, 7)
	if err != nil || len(few) != 7 {
		t.Fatalf("limit 7: %d entries, %v", len(few), err)
	}
}
