package editdist

import "testing"

// TestWithinAgreesWithLevenshtein: the banded check answers exactly
// "Levenshtein(a, b) <= max" for every pair and bound.
func TestWithinAgreesWithLevenshtein(t *testing.T) {
	words := []string{"", "a", "ab", "kitten", "sitting", "saturday", "sunday", "how do i install ros 2",
		"how do i instal ros2", "what is a node", "what is a topic", "héllo wörld", "hello world", "flaw", "lawn"}
	for _, a := range words {
		for _, b := range words {
			d := Levenshtein(a, b)
			for max := -1; max <= 8; max++ {
				if got, want := Within(a, b, max), d <= max; got != want {
					t.Errorf("Within(%q, %q, %d) = %v, Levenshtein is %d", a, b, max, got, d)
				}
			}
		}
	}
}
