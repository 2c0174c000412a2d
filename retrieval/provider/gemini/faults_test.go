package gemini

import (
	"context"
	"encoding/json"
	"net/http"
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
		Name: "Gemini", Model: "gemini-embedding-001", Dim: 3072,
		New: func(base string, timeout time.Duration, limits embedx.Limits) (retrieval.Embedder, error) {
			return New(context.Background(), Options{APIKey: embedxtest.Key, BaseURL: base, ModelDim: 3072, Timeout: timeout, CacheSize: -1, Limits: limits})
		},
		Base: func(root string) string { return root },
		Vectors: func(vecs ...string) string {
			data := make([]string, len(vecs))
			for i, v := range vecs {
				data[i] = `{"values":` + v + `}`
			}
			return `{"embeddings":[` + strings.Join(data, ",") + `]}`
		},
		Error: func(status int, msg string) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": http.StatusText(status)}})
			return string(b)
		},
	})
}
