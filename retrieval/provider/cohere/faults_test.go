package cohere

import (
	"context"
	"encoding/json"

	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/embedx/embedxtest"
)

// TestFaults runs the fault table every provider shares.
func TestFaults(t *testing.T) {
	embedxtest.Run(t, embedxtest.Wire{
		Name: "Cohere", Model: "embed-english-v3.0", Dim: 1024,
		New: func(base string, timeout time.Duration, limits embedx.Limits) (retrieval.Embedder, error) {
			return New(Options{APIKey: embedxtest.Key, BaseURL: base, ModelDim: 1024, Timeout: timeout, CacheSize: -1, Limits: limits,
				Sleep: func(context.Context, time.Duration) error { return nil }})
		},
		Base: func(root string) string { return root },
		Vectors: func(vecs ...string) string {
			return `{"id":"x","response_type":"embeddings_by_type","embeddings":{"float":[` + strings.Join(vecs, ",") + `]}}`
		},
		Error: func(_ int, msg string) string {
			b, _ := json.Marshal(map[string]string{"message": msg})
			return string(b)
		},
	})
}
