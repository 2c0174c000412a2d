package coheretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode"

	"ragscope/retrieval/provider/embedx/fakeapi"
)

// RerankRequest is the body of a rerank call, as the server decoded it.
type RerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      *int     `json:"top_n,omitempty"`
}

// Reranks lists the well-formed rerank calls received, in order.
func (s *Server) Reranks() []RerankRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RerankRequest(nil), s.rerankOK...)
}

// ShortRerank makes the server answer at most n results per rerank call,
// whatever top_n asked (0 restores the normal behaviour): a reranker that
// returns fewer results than asked.
func (s *Server) ShortRerank(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.short = n
}

// TamperRerank makes the server answer f(index, score) as the relevance
// of every document it returns (nil restores the normal scores): a server
// whose scores are not relevances (1e39, -0.5).
func (s *Server) TamperRerank(f func(index int, score float64) float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tamper = f
}

// RerankScore is the fake's relevance of doc to query: the share of the
// query's distinct words (lowercased letters and digits) found in doc,
// 0..1. It is deterministic, so tests can predict the order.
func RerankScore(query, doc string) float64 {
	q := words(query)
	if len(q) == 0 {
		return 0
	}
	d := words(doc)
	hit := 0
	for w := range q {
		if d[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(q))
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// rerank answers a POST /v2/rerank body. Results come best first; equal
// scores come in reverse document order (a server may order ties any
// way; clients must not rely on it).
func (s *Server) rerank(w http.ResponseWriter, body []byte) {
	var req RerankRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "", "invalid request body: "+err.Error())
		return
	}
	switch {
	case !strings.HasPrefix(req.Model, "rerank-"):
		writeError(w, http.StatusBadRequest, "", fmt.Sprintf("model '%s' not found, make sure the correct model ID was used", req.Model))
		return
	case strings.TrimSpace(req.Query) == "":
		writeError(w, http.StatusBadRequest, "", "query must not be empty")
		return
	case len(req.Documents) == 0:
		writeError(w, http.StatusBadRequest, "", "documents must not be empty")
		return
	case req.TopN != nil && *req.TopN < 1:
		writeError(w, http.StatusBadRequest, "", "top_n must be at least 1")
		return
	}
	s.mu.Lock()
	s.rerankOK = append(s.rerankOK, req)
	short, tamper := s.short, s.tamper
	s.mu.Unlock()

	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	}
	res := make([]result, len(req.Documents))
	for i, d := range req.Documents {
		res[i] = result{Index: i, RelevanceScore: RerankScore(req.Query, d)}
	}
	sort.SliceStable(res, func(i, j int) bool {
		if res[i].RelevanceScore != res[j].RelevanceScore {
			return res[i].RelevanceScore > res[j].RelevanceScore
		}
		return res[i].Index > res[j].Index
	})
	n := len(res)
	if req.TopN != nil && *req.TopN < n {
		n = *req.TopN
	}
	if short > 0 && short < n {
		n = short
	}
	if tamper != nil {
		for i := range res[:n] {
			res[i].RelevanceScore = tamper(res[i].Index, res[i].RelevanceScore)
		}
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{
		"id":      "fake-rerank-id",
		"results": res[:n],
		"meta": map[string]any{
			"api_version":  map[string]any{"version": "2"},
			"billed_units": map[string]any{"search_units": 1 + (len(req.Documents)-1)/100},
		},
	})
}
