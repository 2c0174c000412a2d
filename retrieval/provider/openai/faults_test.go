package openai

import (
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
		Name: "OpenAI", Model: "text-embedding-3-small", Dim: 1536,
		New: func(base string, timeout time.Duration, limits embedx.Limits) (retrieval.Embedder, error) {
			return New(Options{APIKey: embedxtest.Key, BaseURL: base, ModelDim: 1536, Shortens: true, Timeout: timeout, CacheSize: -1, Limits: limits})
		},
		Base: func(root string) string { return root + "/v1" },
		Vectors: func(vecs ...string) string {
			data := make([]string, len(vecs))
			for i, v := range vecs {
				data[i] = `{"object":"embedding","index":` + string(rune('0'+i)) + `,"embedding":` + v + `}`
			}
			return `{"object":"list","model":"text-embedding-3-small","data":[` + strings.Join(data, ",") + `],"usage":{"prompt_tokens":1,"total_tokens":1}}`
		},
		Error: func(status int, msg string) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
			return string(b)
		},
	})
}
