package embed

import (
	"slices"
	"testing"
)

// TestDistinctTerms checks that each index term is listed once, where it
// first occurs, alternative spellings after their main form and stop
// words left out.
func TestDistinctTerms(t *testing.T) {
	got := DistinctTerms("The robot uses nav2; the Robot and NAV2 move joints, robot!")
	want := []string{"robot", "nav2", "nav", "move", "joints"}
	if !slices.Equal(got, want) {
		t.Fatalf("DistinctTerms = %q, want %q (Terms: %q)", got, want, Terms("The robot uses nav2; the Robot and NAV2 move joints, robot!"))
	}
	if got := DistinctTerms("the and of"); len(got) != 0 {
		t.Fatalf("stop words only: %q", got)
	}
}
