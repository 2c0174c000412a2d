package textnorm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"How do I run ROS2?":       "how do i run ros2",
		"  --Quality-of-Service!!": "quality of service",
		"Héllo, Wörld ½ x²":        "héllo wörld ½ x²",
		"?!":                       "",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Words("What is Quality-of-Service?"); !slices.Equal(got, []string{"what", "is", "quality", "of", "service"}) {
		t.Errorf("Words = %q", got)
	}
	if got := Words("?!"); len(got) != 0 {
		t.Errorf("Words(?!) = %q, want none", got)
	}
}

// The byte-by-byte path for ASCII text gives what the general one gives.
func TestNormalizeASCIIFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const chars = "aZ09 ?!\t\x00\x1b-_.  \r\v\f\x7fQz"
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		s := string(b)
		if got, want := normalizeASCII(s), normalizeRunes(s); got != want {
			t.Fatalf("normalizeASCII(%q) = %q, want %q", s, got, want)
		}
	}
}
