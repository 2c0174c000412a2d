package cli

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// query --context shows beside each "[Source N: title - section]" marker
// the rank of that hit, since sources are numbered in context order (a
// page's chunks in reading order), not by rank; the JSON context, the
// model's, has no ranks.
func TestContextShowsEachSourcesRank(t *testing.T) {
	const q = "what is ROS 2?"
	code, out, errs := run(t, nil, "", "query", "--context", q)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if c, js, e := run(t, nil, "", "query", "--json", q); c != ExitOK || json.Unmarshal([]byte(js), &doc) != nil {
		t.Fatalf("query --json: exit %d: %s", c, e)
	}
	if strings.Contains(doc.Grounded.Context, "(rank #") {
		t.Fatalf("the model's context carries ranks:\n%s", doc.Grounded.Context)
	}
	marker := regexp.MustCompile(`(?m)^\[Source (\d+): (.*)\] \(rank #(\d+)\)$`)
	found := marker.FindAllStringSubmatch(out, -1)
	if len(found) != len(doc.Results) || !strings.Contains(out, "shown here only") {
		t.Fatalf("%d ranked markers for %d results:\n%s", len(found), len(doc.Results), out)
	}
	differ := false
	for _, m := range found {
		n, _ := strconv.Atoi(m[1])
		rank, _ := strconv.Atoi(m[3])
		h := doc.Results[rank-1]
		want := h.Title
		if h.Section != "" {
			want += " - " + h.Section
		}
		if h.Rank != rank || m[2] != want {
			t.Errorf("Source %d says rank #%d, whose hit is %q (rank %d), not %q", n, rank, want, h.Rank, m[2])
		}
		differ = differ || n != rank
	}
	if !differ {
		t.Errorf("the question no longer orders its context apart from its ranks; pick another:\n%s", out)
	}
}
