package termsafe

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "ROS 2 nodes\ntalk", "ROS 2 nodes\ntalk"},
		{"csi colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"cursor move and clear", "a\x1b[2J\x1b[Hb", "ab"},
		{"osc title bel", "\x1b]0;pwned\x07after", "after"},
		{"osc 52 clipboard st", "\x1b]52;c;ZXZpbA==\x1b\\x", "x"},
		{"c1 csi", "a\u009b31mb", "a31mb"},
		{"bell backspace cr", "a\x07b\x08c\rd", "abcd"},
		{"tab", "a\tb", "a    b"},
		{"bidi override", "abc\u202Edef", "abcdef"},
		{"invalid utf8", "ok\xffok", "ok\uFFFDok"},
		{"unicode kept", "Привет 你好 🚀", "Привет 你好 🚀"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			if got != tt.want {
				t.Fatalf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.ContainsAny(got, "\x1b\x07\x08\r\u009b") {
				t.Fatalf("control characters survived in %q", got)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got := Line("  a\n\n b\x1b[1m c  "); got != "a b c" {
		t.Fatalf("Line = %q", got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("\x1b[31mred")
	f.Add("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		for _, r := range got {
			if r == 0x1b || (r < 0x20 && r != '\n') || (r >= 0x80 && r <= 0x9f) || r == 0x7f {
				t.Fatalf("Text(%q) kept control %U", s, r)
			}
		}
	})
}
