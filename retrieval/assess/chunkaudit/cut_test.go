package chunkaudit

import (
	"strings"
	"testing"
)

// TestCutAt: the text before the cut has exactly the limit's tokens by
// Tokens, the text after it the rest; within the limit nothing is cut.
func TestCutAt(t *testing.T) {
	texts := []string{
		"", "one", "A node is the unit of computation, isn't it?",
		"internationalisation is a long word; so is characteristically.",
		"ROS 2 (Robot Operating System) 节点 とトピック — 123456789012 done.",
		strings.Repeat("word, ", 300),
	}
	for _, text := range texts {
		total := Tokens(text)
		for limit := 1; limit <= total+2; limit++ {
			cut := CutAt(text, limit)
			if got, want := Tokens(text[:cut]), min(limit, total); got != want {
				t.Fatalf("%q limit %d: %d tokens before the cut at %d, want %d", text, limit, got, cut, want)
			}
			if got, want := Tokens(text[cut:]), max(total-limit, 0); got != want {
				t.Fatalf("%q limit %d: %d tokens after the cut at %d, want %d", text, limit, got, cut, want)
			}
		}
		if CutAt(text, 0) != len(text) {
			t.Errorf("%q: limit 0 cut", text)
		}
	}
	if got := CutAt("alpha beta gamma", 2); got != len("alpha beta ") {
		t.Errorf("cut = %d", got)
	}
}
