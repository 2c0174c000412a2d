package termsafe

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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

// poison is the payload of the clipboard audit: every
// way a pasted text could drive a terminal or a shell.
const poison = "\x1b[31m\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\" +
	"\x1b]0;title\x07\x1bPqpayload\x1b\\\x1b_apc\x1b\\\u009b31m\x9b2m" + "rm -rf ~\r\x08\x08ls\u202efdp.exe"

// outboundControl reports a character nothing outbound may carry.
func outboundControl(s string) (rune, bool) {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) || r == 0x200D {
			return r, true
		}
	}
	return 0, false
}

func TestOutbound(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "ROS 2 nodes\ntalk", "ROS 2 nodes\ntalk"},
		{"tab kept", "a\tb", "a\tb"},
		{"crlf is a newline", "a\r\nb", "a\nb"},
		{"lone cr dropped", "rm -rf ~\rls", "rm -rf ~ls"},
		{"backspace", "ab\x08\x08cd", "abcd"},
		{"csi", "\x1b[31mred\x1b[0m", "red"},
		{"osc 52 bel", "\x1b]52;c;ZXZpbA==\x07x", "x"},
		{"osc 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc 0 title", "\x1b]0;pwned\x07after", "after"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"apc", "a\x1b_Gf=100\x1b\\b", "ab"},
		{"c1 csi rune", "a\u009b31mb", "a31mb"},
		{"c1 csi raw byte", "a\x9b31mb", "a\uFFFD31mb"},
		{"bidi override", "abc\u202Edef", "abcdef"},
		{"bidi isolate", "a\u2066b\u2069c", "abc"},
		{"zwj", "👩\u200d💻", "👩💻"},
		{"unicode kept", "Привет 你好 🚀", "Привет 你好 🚀"},
		{"poison", poison, "link31m\uFFFD2mrm -rf ~lsfdp.exe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Outbound(tt.in)
			if got != tt.want {
				t.Fatalf("Outbound(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if r, bad := outboundControl(got); bad {
				t.Fatalf("Outbound(%q) kept %U", tt.in, r)
			}
		})
	}
}

func TestURL(t *testing.T) {
	tests := []struct {
		name, in, want string
		refused        bool
	}{
		{name: "plain", in: "https://book.example.org/docs/nodes#topics", want: "https://book.example.org/docs/nodes#topics"},
		{name: "spaces trimmed", in: "  https://x.example/a  ", want: "https://x.example/a"},
		{name: "unicode path", in: "https://x.example/Привет#你好", want: "https://x.example/Привет#你好"},
		{name: "esc", in: "https://x.example/a\x1b[2J", refused: true},
		{name: "osc 52", in: "https://x.example/\x1b]52;c;ZXZpbA==\x07", refused: true},
		{name: "newline", in: "https://x.example/a\nrm -rf ~", refused: true},
		{name: "cr", in: "https://x.example/a\r", refused: true},
		{name: "tab", in: "https://x.example/\ta", refused: true},
		{name: "backspace", in: "https://x.example/a\x08", refused: true},
		{name: "del", in: "https://x.example/a\x7f", refused: true},
		{name: "c1", in: "https://x.example/a\u0085", refused: true},
		{name: "raw c1 byte", in: "https://x.example/a\x9b", refused: true},
		{name: "bidi", in: "https://x.example/\u202Efdp.exe", refused: true},
		{name: "zero width space", in: "https://x.exa\u200bmple/", refused: true},
		{name: "zwj", in: "https://x.example/\u200d", refused: true},
		{name: "bom", in: "\ufeffhttps://x.example/", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := URL(tt.in)
			if tt.refused {
				if err == nil || !errors.Is(err, ErrUnsafeURL) || got != "" {
					t.Fatalf("URL(%q) = %q, %v; want refused with ErrUnsafeURL", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("URL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// Characters the width library and terminals measure differently are
// dropped from screen text (a ZWJ would shift a border).
func TestTextWidthAgrees(t *testing.T) {
	for _, s := range []string{"👩\u200d💻 coder", "a\u200db", "☺\ufe0f smile", "❤\ufe0f"} {
		got := Text(s)
		if g, w := ansi.StringWidth(got), ansi.StringWidthWc(got); g != w {
			t.Errorf("Text(%q) = %q: grapheme width %d, wcwidth %d", s, got, g, w)
		}
	}
}

func FuzzOutbound(f *testing.F) {
	f.Add(poison)
	f.Add("a\r\nb\tc")
	f.Fuzz(func(t *testing.T, s string) {
		if r, bad := outboundControl(Outbound(s)); bad {
			t.Fatalf("Outbound(%q) kept %U", s, r)
		}
		if u, err := URL(s); err == nil {
			if r, bad := outboundControl(u); bad || strings.ContainsAny(u, "\n\t") {
				t.Fatalf("URL(%q) accepted %U", s, r)
			}
		}
	})
}

func TestWriterStripsControlSequences(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	writes := []string{
		"best chunk 7 · \x1b]52;c;ZXZpbA==\x07Head\x1b]8;;https://evil.test\x1b\\link\x1b]8;;\x1b\\\n",
		"\x1b[2J\u009b31mred\u0085 \u202eevil\u202c \u2066iso\u2069\r\nback\bspace\x00\n",
		"tab\tkept, emoji 👩\u200d💻 kept, ",
		"split \xe2\x80", "\xae rune, torn é\xc3", "\xa9\n",
		`{"json": "\u001b \u202e"}` + "\n",
	}
	for _, s := range writes {
		n, err := w.Write([]byte(s))
		if err != nil || n != len(s) {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "best chunk 7 · Headlink\n" +
		"31mred evil iso\nbackspace\n" +
		"tab\tkept, emoji 👩\u200d💻 kept, split  rune, torn éé\n" +
		`{"json": "\u001b \u202e"}` + "\n"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestWriterFlushesATornRune(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	w.Write([]byte("end \xe2\x80"))
	if b.String() != "end " {
		t.Fatalf("before Flush: %q", b.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "end \uFFFD" {
		t.Errorf("after Flush: %q", got)
	}
}

func TestWriterFd(t *testing.T) {
	if fd := NewWriter(os.Stderr).Fd(); fd != os.Stderr.Fd() {
		t.Errorf("Fd = %d, want %d", fd, os.Stderr.Fd())
	}
	if fd := NewWriter(&strings.Builder{}).Fd(); fd != ^uintptr(0) {
		t.Errorf("Fd of a buffer = %d, want none", fd)
	}
}

// Visible keeps what a page shows (the width-ambiguous characters too)
// and drops escape sequences and controls; EscapeURL encodes exactly what
// URL refuses, so the result passes URL and decodes back.
func TestVisibleAndEscapeURL(t *testing.T) {
	if got := Visible("\x1b[1m❤\ufe0f Love\x1b[0m\u202e"); got != "❤\ufe0f Love" {
		t.Errorf("Visible = %+q", got)
	}
	for in, want := range map[string]string{
		"https://x.example/a#b":              "https://x.example/a#b",
		"https://x.example/#\ufe0f-love":     "https://x.example/#%EF%B8%8F-love",
		"https://x.example/#über\u200dx\x07": "https://x.example/#über%E2%80%8Dx%07",
		"https://x.example/#a\xffb":          "https://x.example/#a%FFb",
	} {
		got := EscapeURL(in)
		if got != want {
			t.Errorf("EscapeURL(%+q) = %q, want %q", in, got, want)
		}
		if _, err := URL(got); err != nil {
			t.Errorf("URL(EscapeURL(%+q)): %v", in, err)
		}
	}
}
