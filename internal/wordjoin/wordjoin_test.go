package wordjoin

import (
	"testing"
	"unicode"
)

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
