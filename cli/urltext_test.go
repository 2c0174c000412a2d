package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ragscope/present"
)

// TestQueryTextURLs: the text output prints each hit's citation whole,
// and each left-out hit with the end of its URL (present.FitURL), which
// tells apart two sections of one page title.
func TestQueryTextURLs(t *testing.T) {
	args := []string{"query", "-k", "100", "how do nodes talk?"}
	code, out, errs := run(t, nil, "", append([]string{"query", "--json"}, args[1:]...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Results []struct {
			URL string `json:"url"`
		} `json:"results"`
		Dropped []struct {
			URL string `json:"url"`
		} `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Dropped) == 0 {
		t.Skip("the demo drops no duplicate for this question any more")
	}
	code, text, errs := run(t, nil, "", args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, r := range doc.Results {
		if !strings.Contains(text, "    "+r.URL+"\n") {
			t.Fatalf("the whole URL %s is not on a line of its own", r.URL)
		}
	}
	_, left, _ := strings.Cut(text, "Left out")
	for _, d := range doc.Dropped {
		tail := present.FitURL(d.URL, droppedURLWidth)
		if d.URL == "" || !strings.Contains(left, "  "+tail+"\n") {
			t.Errorf("left-out hit %s: no line ends with %q:\n%s", d.URL, tail, left)
		}
	}
}
