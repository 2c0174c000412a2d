package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/config"
	"ragscope/retrieval/store/local"
)

// TestLocalSearchModes: the demo ranks with BM25 alone by default and
// says so in the header and the JSON backend, with plain scores;
// --local-search hybrid (or RAGSCOPE_LOCAL_SEARCH) blends BM25 with the
// embedder, says so and gives each hit's score parts; embedder ranks by
// the embedder alone; a bad value is refused.
func TestLocalSearchModes(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "-k", "3", "What is ROS 2?")
	if code != ExitOK || !strings.Contains(out, "· BM25 + title match") || strings.Contains(out, "· cosine ") {
		t.Errorf("default: exit %d, want header \"· BM25 + title match\" and plain scores:\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, nil, "", "--local-search", "hybrid", "query", "-k", "3", "What is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "· hybrid 0.8×cosine + 0.2×BM25 + title match") || !strings.Contains(out, " 1. [") || !strings.Contains(out, " · bm25 ") || !strings.Contains(out, " · cosine ") {
		t.Errorf("hybrid header or score parts missing:\n%s", out)
	}
	if !strings.Contains(out, " 1. [") || !strings.Contains(out[strings.Index(out, " 1. ["):], "What Is ROS 2?") {
		t.Errorf("What is ROS 2? does not rank its page first:\n%s", out)
	}
	code, out, errs = run(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "hybrid"}, "", "query", "--json", "-k", "3", "What is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Backend.Search, "hybrid ") || len(doc.Results) == 0 {
		t.Fatalf("backend %+v, %d results", doc.Backend, len(doc.Results))
	}
	for _, h := range doc.Results {
		p := h.ScoreParts
		if p == nil || p.Fusion == "" || p.BM25 <= 0 || p.Cosine == 0 {
			t.Errorf("hit %d: score parts %+v", h.Rank, p)
		}
	}
	code, out, errs = run(t, nil, "", "query", "--json", "-k", "3", "What is ROS 2?")
	var plain QueryJSON
	if err := json.Unmarshal([]byte(out), &plain); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v: %s", code, err, errs)
	}
	if plain.Backend.Search != "BM25 + title match" || len(plain.Results) == 0 || plain.Results[0].ScoreParts != nil {
		t.Errorf("default JSON: backend %+v, %d results", plain.Backend, len(plain.Results))
	}
	for _, tc := range []struct {
		args   []string
		env    map[string]string
		header string
	}{
		{[]string{"--local-search", "bm25"}, nil, "· BM25 + title match"},
		{nil, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "embedder"}, "· embedder only"},
	} {
		code, out, errs := run(t, tc.env, "", append(tc.args, "query", "-k", "2", "What is ROS 2?")...)
		if code != ExitOK || !strings.Contains(out, tc.header) || strings.Contains(out, "· cosine ") {
			t.Errorf("%v %v: exit %d, want header %q and plain scores:\n%s%s", tc.args, tc.env, code, tc.header, out, errs)
		}
	}
	if code, _, errs := run(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": "vector"}, "", "query", "What is ROS 2?"); code != ExitConfig || !strings.Contains(errs, "use bm25, hybrid or embedder") {
		t.Errorf("bad RAGSCOPE_LOCAL_SEARCH: exit %d: %s", code, errs)
	}
}

// TestNoEvidenceIsNotSufficient: on the demo, a question with no word the
// book has (nonsense, Chinese) finds nothing: exit 1 and
// sufficient_context false.
func TestNoEvidenceIsNotSufficient(t *testing.T) {
	for _, q := range []string{"xqzzv blorfing wubbadub", "机器人是什么？"} {
		code, out, errs := run(t, nil, "", "query", "--json", q)
		if code != ExitNoResults {
			t.Errorf("%q: exit %d, want %d: %s", q, code, ExitNoResults, errs)
		}
		var doc QueryJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Grounded.SufficientContext || doc.Count != 0 {
			t.Errorf("%q: sufficient_context %v with %d results", q, doc.Grounded.SufficientContext, doc.Count)
		}
	}
}

// TestTUIHeaderNamesTheSearch: the explorer's header names the local
// search, starting with the configured mode, and keeps the point count;
// a field that does not fit (the embedder's long name first) is left out
// whole, never cut.
func TestTUIHeaderNamesTheSearch(t *testing.T) {
	for env, want := range map[string]string{"": "· BM25 + title match · 164 points", "hybrid": "· hybrid 0.8×cosine + 0.2×BM25 + title match · 164 points"} {
		d := newTUIDriver(t, tuiOptionsFor(t, map[string]string{"RAGSCOPE_LOCAL_SEARCH": env}))
		h := headerLine(d.m)
		model := strings.Contains(h, "ragscope-local-glove100")
		if !strings.Contains(h, want) || strings.Contains(h, "…") || (model && !strings.Contains(h, "ragscope-local-glove100-sif+chargram-v2")) || !strings.HasSuffix(strings.TrimSpace(h), "· 164 points") {
			t.Errorf("RAGSCOPE_LOCAL_SEARCH=%q: header %q lacks %q", env, h, want)
		}
	}
}

// TestLocalSearchNamesMatch: config's list of local search modes is
// package local's, default first.
func TestLocalSearchNamesMatch(t *testing.T) {
	modes := local.SearchModes()
	names := config.LocalSearchModes()
	if len(modes) != len(names) {
		t.Fatalf("config %v, local %v", names, modes)
	}
	for i := range modes {
		if string(modes[i]) != names[i] {
			t.Errorf("config %v, local %v", names, modes)
		}
	}
}
