package local

import (
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/store/storetest"
)

// TestStoreContract runs the contract suite shared by every Store.
func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, chunks []retrieval.Chunk, vectors [][]float32) retrieval.Store {
		ix, err := NewIndex(chunks, vectors, IndexInfo{Backend: BackendLocal, Name: "contract", Model: "test"})
		if err != nil {
			t.Fatalf("NewIndex: %v", err)
		}
		return ix
	})
}
