package embed

import (
	"slices"
	"testing"
)

// TestNearestWords finds inflections and near synonyms among the words
// keep accepts, most similar first, never the word itself.
func TestNearestWords(t *testing.T) {
	set, err := NewWordSet(func(w string) bool { return w != "falling" })
	if err != nil {
		t.Fatal(err)
	}
	near := set.Nearest([]string{"falls", "robot", "zzqxj"}, 3, 0.4, map[string]struct{}{"robotics": {}})
	if len(near) != 3 || len(near[2]) != 0 {
		t.Fatalf("got %v", near)
	}
	for i, w := range []string{"falls", "robot"} {
		ns := near[i]
		if len(ns) != 3 {
			t.Fatalf("%s: %v", w, ns)
		}
		t.Logf("%s: %v", w, ns)
		for j, n := range ns {
			if n.Word == w || n.Word == "falling" || n.Word == "robotics" || n.Cos < 0.4 || (j > 0 && n.Cos > ns[j-1].Cos) {
				t.Errorf("%s: %v", w, ns)
			}
		}
	}
	if !slices.ContainsFunc(near[1], func(n Neighbour) bool { return n.Word == "robots" }) {
		t.Errorf("robot's neighbours %v lack robots", near[1])
	}
}

func BenchmarkNearestWords(b *testing.B) {
	set, err := NewWordSet(func(w string) bool { return len(w)%8 == 0 }) // about a corpus's share
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d words", set.Len())
	words := []string{"robot", "falls", "floor", "simulation", "starts"}
	for b.Loop() {
		set.Nearest(words, 1, 0.5, nil)
	}
}
