package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// query --selected-text on the demo titles the hit with its page's title,
// as the explorer does, not with the slug of --source-doc; without a
// source doc it is "Selected text".
func TestSelectedTextHitTakesThePageTitle(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--json", "--selected-text", "ROS 2 uses DDS.",
		"--source-doc", "docs/module-1-ros2/01-what-is-ros2.md", "what does ROS 2 use?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Results []struct {
			Title string `json:"title"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(doc.Results) != 1 || doc.Results[0].Title != "What Is ROS 2?" {
		t.Fatalf("results %+v, want one titled %q", doc.Results, "What Is ROS 2?")
	}

	code, out, errs = run(t, nil, "", "query", "--selected-text", "ROS 2 uses DDS.", "what does ROS 2 use?")
	if code != 0 || !strings.Contains(out, "Selected text") {
		t.Fatalf("exit %d, without a source doc:\n%s%s", code, out, errs)
	}
}
