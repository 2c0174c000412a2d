package retrieval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseMarker(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"Source 2", []int{2}},
		{"source 1, 3", []int{1, 3}},
		{"Sources 1 and 3", []int{1, 3}},
		{"Sources 1, 2 & 2", []int{1, 2}},
		{"Source 2: ROS 2 - Nodes", []int{2}},
		{"Source 1; Source 4", []int{1, 4}},
		{"3", []int{3}},
		{"1, 2", []int{1, 2}},
		{"see above", nil},
		{"Source", nil},
		{"Source x", nil},
		{"0", nil},
		{"2023 edition", nil},
	} {
		got, ok := ParseMarker(tc.in)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("ParseMarker(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
}

// feedAll feeds text in pieces of n bytes (splitting runes is not
// possible: providers send whole characters) and returns the citations.
func feedAll(text string, n int) []AnswerCitation {
	p := NewMarkerParser()
	var out []AnswerCitation
	r := []rune(text)
	for i := 0; i < len(r); i += n {
		out = append(out, p.Feed(string(r[i:min(i+n, len(r))]))...)
	}
	return out
}

func TestMarkerParserSpans(t *testing.T) {
	text := "ROS 2 is a middleware [Source 1]. Nodes talk over topics. [Source 2][Source 3] QoS matters [Sources 1 and 4]. Plain [note] [Source 2: Nodes - Topics]"
	for _, n := range []int{1, 3, 7, len(text)} {
		cs := feedAll(text, n)
		if len(cs) != 5 {
			t.Fatalf("piece %d: %d citations %+v", n, len(cs), cs)
		}
		want := []struct {
			text    string
			sources []int
		}{
			{"ROS 2 is a middleware", []int{1}},
			{"Nodes talk over topics.", []int{2}},
			{"Nodes talk over topics.", []int{3}},
			{"QoS matters", []int{1, 4}},
			{"Plain [note]", []int{2}},
		}
		r := []rune(text)
		for i, w := range want {
			c := cs[i]
			if c.Text != w.text || !slices.Equal(c.Sources, w.sources) {
				t.Errorf("piece %d, citation %d: %q %v, want %q %v", n, i, c.Text, c.Sources, w.text, w.sources)
			}
			if string(r[c.End-len([]rune(c.Marker)):c.End]) != c.Marker || !strings.HasPrefix(c.Marker, "[") {
				t.Errorf("piece %d: marker %q not at [%d,%d)", n, c.Marker, c.Start, c.End)
			}
			if !strings.HasPrefix(string(r[c.Start:c.End]), w.text) {
				t.Errorf("piece %d: span %q does not start with %q", n, string(r[c.Start:c.End]), w.text)
			}
		}
	}
}

func TestMarkerParserIgnoresUnclosedAndLong(t *testing.T) {
	if cs := feedAll("An [unclosed\nbracket [Source 1] then", 4); len(cs) != 1 || cs[0].Sources[0] != 1 {
		t.Errorf("%+v", cs)
	}
	long := "[" + strings.Repeat("x", 500) + " Source 1]"
	if cs := feedAll(long, 5); len(cs) != 0 {
		t.Errorf("a long bracket is prose: %+v", cs)
	}
	// Characters beyond ASCII keep character offsets.
	cs := feedAll("Größe ist wichtig [Source 1]", 2)
	if len(cs) != 1 || cs[0].Start != 0 || cs[0].End != 28 || cs[0].Text != "Größe ist wichtig" {
		t.Errorf("%+v", cs)
	}
}

// fakeGen streams fixed deltas.
type fakeGen struct {
	deltas []Delta
	err    error
	calls  int
}

func (g *fakeGen) Stream(ctx context.Context, p Prompt, emit func(Delta)) error {
	g.calls++
	for _, d := range g.deltas {
		emit(d)
	}
	return g.err
}
func (g *fakeGen) Model() string    { return "m" }
func (g *fakeGen) Provider() string { return "p" }

func TestGenerateSelectedTextAndErrors(t *testing.T) {
	p := &Pipeline{}
	res, err := p.Retrieve(context.Background(), Query{Question: "Explain", Mode: ModeSelectedText, SelectedText: "Topics carry messages.", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	pr := NewPrompt(res)
	if pr.Instruction != InstructionSelectedText || pr.Context != "Topics carry messages." || len(pr.Sources) != 1 || pr.Sources[0].Rank != 1 {
		t.Fatalf("prompt %+v", pr)
	}
	g := &fakeGen{deltas: []Delta{{Text: "They carry messages "}, {Text: "[Source 1]", Citations: []AnswerCitation{{Start: 20, End: 30, Sources: []int{1}, Marker: "[Source 1]"}}}}}
	a, err := Generate(context.Background(), g, res, nil)
	if err != nil || !slices.Equal(a.Cited, []int{1}) || a.Annotated() != "They carry messages [1]" {
		t.Errorf("%v %+v %q", err, a, a.Annotated())
	}
	g = &fakeGen{deltas: []Delta{{Text: "They carry messages."}}}
	if a, _ = Generate(context.Background(), g, res, nil); len(a.Warnings(true)) != 0 {
		t.Errorf("an uncited answer from the selection: %q", a.Warnings(true))
	}
	if _, err := Generate(context.Background(), nil, res, nil); !errors.Is(err, ErrNoGenerator) || !errors.Is(err, ErrConfig) {
		t.Errorf("no generator: %v", err)
	}
	boom := errors.New("boom")
	g = &fakeGen{deltas: []Delta{{Text: "part"}}, err: boom}
	a, err = Generate(context.Background(), g, res, nil)
	if !errors.Is(err, boom) || a.Text != "part" {
		t.Errorf("partial answer on error: %v %q", err, a.Text)
	}
}

func TestAnswerWarningsAndRefusal(t *testing.T) {
	a := Answer{Text: "The textbook does not cover baking."}
	if w := a.Warnings(true); len(w) != 0 {
		t.Errorf("a refusal needs no citation: %q", w)
	}
	if w := a.Warnings(false); len(w) != 1 || !strings.Contains(w[0], "insufficient") {
		t.Errorf("%q", w)
	}
	if !LooksLikeRefusal("I don’t know.") || LooksLikeRefusal("ROS 2 uses DDS.") {
		t.Error("LooksLikeRefusal")
	}
}

// BenchmarkAnswerStream accumulates a 5,000-word answer streamed in
// chunks of about three words, parsing its [Source N] markers as they
// come: the cost per chunk, which a UI pays in its Update.
func BenchmarkAnswerStream(b *testing.B) {
	var chunks []string
	words := 0
	for words < 5000 {
		for _, w := range strings.Fields("ROS 2 nodes exchange messages over topics with a chosen QoS profile. [Source 2] Services answer requests; actions report progress [Source 1, 3].") {
			chunks = append(chunks, w+" ")
			words++
		}
	}
	// about three words a chunk, as chat APIs stream tokens
	var merged []string
	for i := 0; i < len(chunks); i += 3 {
		merged = append(merged, strings.Join(chunks[i:min(i+3, len(chunks))], ""))
	}
	p := Prompt{Sources: []PromptSource{{N: 1, Rank: 2}, {N: 2, Rank: 1}, {N: 3, Rank: 3}}}
	b.Run("accumulate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mp := NewMarkerParser()
			ab := NewAnswerBuilder(p)
			for _, c := range merged {
				ab.Add(Delta{Text: c, Citations: mp.Feed(c)})
			}
			if a := ab.Answer(); len(a.Cited) != 3 {
				b.Fatal(a.Cited)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(merged)), "ns/chunk")
	})
	// What a pane that redraws the whole answer after every chunk pays:
	// the chunk, then a snapshot with cited and uncited ranks. The
	// snapshot grows with the answer; this is its cost at 5,000 words.
	b.Run("snapshot-at-5000-words", func(b *testing.B) {
		mp := NewMarkerParser()
		ab := NewAnswerBuilder(p)
		for _, c := range merged {
			ab.Add(Delta{Text: c, Citations: mp.Feed(c)})
		}
		b.ReportAllocs()
		for b.Loop() {
			if a := ab.Answer(); len(a.Text) == 0 {
				b.Fatal("empty")
			}
		}
	})
}
