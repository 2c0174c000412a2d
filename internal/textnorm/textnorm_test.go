package textnorm

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode"
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
		if got, want := joinASCII(s, ' '), joinRunes(s, ' ', unicode.IsNumber); got != want {
			t.Fatalf("joinASCII(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, c := range []struct {
		in, dash, space string
	}{
		{"Quality of Service!", "quality-of-service", "quality of service"},
		{"  --ROS 2: nodes & topics--  ", "ros-2-nodes-topics", "ros 2 nodes topics"},
		{"Überblick — Grundlagen", "überblick-grundlagen", "überblick grundlagen"},
		{"x² and Ⅳ", "x-and", "x² and ⅳ"},
		{"", "", ""},
		{"!?", "", ""},
	} {
		if got := Join(c.in, '-', unicode.IsDigit); got != c.dash {
			t.Errorf("Join(%q, '-', IsDigit) = %q, want %q", c.in, got, c.dash)
		}
		if got := Join(c.in, ' ', unicode.IsNumber); got != c.space {
			t.Errorf("Join(%q, ' ', IsNumber) = %q, want %q", c.in, got, c.space)
		}
	}
}
