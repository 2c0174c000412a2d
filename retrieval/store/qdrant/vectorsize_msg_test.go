package qdrant

import (
	"strings"
	"testing"
)

// The mismatch message names the fixes of every provider.
func TestVectorSizeErrorNamesEveryFix(t *testing.T) {
	msg := (&VectorSizeError{Collection: "book", Have: 768, Want: 1024}).Error()
	for _, want := range []string{"768-dimensional", "makes 1024", "--model", "--embedder", "--dimensions 768", "QDRANT_COLLECTION"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
