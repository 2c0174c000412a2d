package present

import (
	"testing"
	"time"

	"ragscope/retrieval"
)

func TestText(t *testing.T) {
	c := retrieval.Chunk{Title: "Nodes", Section: "Topics", Module: "m1", Chapter: "c2", ChunkIndex: retrieval.IntPtr(0), TotalChunks: retrieval.IntPtr(7)}
	tm := retrieval.Timings{Embed: 12300 * time.Microsecond, Search: 4500 * time.Microsecond, Post: 200 * time.Microsecond, Total: 17 * time.Millisecond}
	withLoad := tm
	withLoad.Load = 2 * time.Millisecond
	tests := []struct {
		name, got, want string
	}{
		{"title section", Title(&c), "Nodes - Topics"},
		{"section equal to title", Title(&retrieval.Chunk{Title: "Nodes", Section: "Nodes"}), "Nodes"},
		{"doc path for missing title", Title(&retrieval.Chunk{DocPath: "docs/a.md", Section: "Intro"}), "docs/a.md - Intro"},
		{"untitled", Title(&retrieval.Chunk{}), "(untitled)"},
		{"untitled with section", Title(&retrieval.Chunk{Section: "S"}), "(untitled) - S"},
		{"control chars stripped", Title(&retrieval.Chunk{Title: "a\x1b[31mred\x1b[0m\nb"}), "ared b"},
		{"place", Place(&c), "m1 / c2 · chunk 1/7"},
		{"place module only", Place(&retrieval.Chunk{Module: "m1"}), "m1"},
		{"place without total", Place(&retrieval.Chunk{ChunkIndex: retrieval.IntPtr(2)}), "chunk 3"},
		{"place empty", Place(&retrieval.Chunk{}), ""},
		{"preview short", Preview("a\nb", 10), "a b"},
		{"preview cut", Preview("héllo wörld again", 8), "héllo w…"},
		{"preview cut at space", Preview("one two three", 5), "one…"},
		{"preview zero", Preview("abc", 0), ""},
		{"middle short", Middle("a\nb", 10), "a b"},
		{"middle cut", Middle("docs/module-1/intro.md", 11), "doc…ntro.md"},
		{"middle cut odd", Middle("héllo wörld", 6), "h…örld"},
		{"middle cleaned", Middle("a\x1b[31mb\u202ec", 10), "abc"},
		{"middle zero", Middle("abc", 0), ""},
		{"count one", Count(1, "result", "results"), "1 result"},
		{"count many", Count(1024, "result", "results"), "1,024 results"},
		{"count zero", Count(0, "hit", "hits"), "0 hits"},
		{"on", OnOff(true), "on"},
		{"off", OnOff(false), "off"},
		{"filters none", Filters(retrieval.Filters{}), "none"},
		{"filters", Filters(retrieval.Filters{Modules: []string{"a", "b"}, Tags: []string{"t"}}), "module=a|b tag=t"},
		{"group", Int(1234567), "1,234,567"},
		{"group small", Int(999), "999"},
		{"group negative", Int(-1000), "-1,000"},
		{"score", Score(0.12345, 3), "0.123"},
		{"duration", Duration(1234567 * time.Nanosecond), "1.2 ms"},
		{"timings", Timings(tm, retrieval.ModeNormal), "embed 12.3 ms · search 4.5 ms · post 0.2 ms · total 17.0 ms"},
		{"timings with load", Timings(withLoad, retrieval.ModeNormal), "load 2.0 ms · embed 12.3 ms · search 4.5 ms · post 0.2 ms · total 17.0 ms"},
		{"timings selected text", Timings(tm, retrieval.ModeSelectedText), "no search · total 17.0 ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abcd": 1, "abcde": 2, "héllo wörld!": 3} {
		if got := Tokens(in); got != want {
			t.Errorf("Tokens(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestGradeWord(t *testing.T) {
	for g, want := range map[int]string{0: "unrelated", 1: "related", 2: "partly answers", 3: "answers", 4: "?", -1: "?"} {
		if got := GradeWord(g); got != want {
			t.Errorf("GradeWord(%d) = %q, want %q", g, got, want)
		}
	}
}
