package yamlsafe

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"ragscope/internal/jsonsafe"
)

func TestEncodeEscapesBidiAndRoundTrips(t *testing.T) {
	type item struct {
		Q string `yaml:"q"`
	}
	in := []item{
		{"plain question"},
		{"why \u202eevil\u202c text \u2066x\u2069 \u200e\u200f\u061c?"},
		{"bell \a esc \x1b[31m nel \u0085 csi \u009b2J"},
		{"multi\nline \u202e here"},
	}
	out, err := Encode(map[string]any{"cases": in})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range string(out) {
		if jsonsafe.Unsafe(r) || (r < 0x20 && r != '\n') || r == 0x7f {
			t.Fatalf("raw %U at byte %d:\n%s", r, i, out)
		}
	}
	if !strings.Contains(string(out), `\u202E`) {
		t.Errorf("no \\u202E escape:\n%s", out)
	}
	var back struct {
		Cases []item `yaml:"cases"`
	}
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("does not decode: %v\n%s", err, out)
	}
	if len(back.Cases) != len(in) {
		t.Fatalf("decoded %d cases, want %d", len(back.Cases), len(in))
	}
	for i := range in {
		if back.Cases[i] != in[i] {
			t.Errorf("case %d decodes to %q, want %q", i, back.Cases[i].Q, in[i].Q)
		}
	}
}

func TestEncodeNodeKeepsCommentsAndPlainText(t *testing.T) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{
		Kind: yaml.MappingNode, HeadComment: "made by a test",
		Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "name"},
			{Kind: yaml.ScalarNode, Value: "naïve set"},
		},
	}}}
	out, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# made by a test\nname: naïve set\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}
