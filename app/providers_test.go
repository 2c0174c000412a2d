package app

import (
	"os"
	"slices"
	"strings"
	"testing"

	"ragscope/config"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/gemini"
	"ragscope/retrieval/provider/openai"
)

// readmeTable returns the rows of the README table whose header starts
// with header, each row's cells trimmed.
func readmeTable(t *testing.T, readme, header string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+header)
	if !ok {
		t.Fatalf("README has no table headed %q", header)
	}
	var rows [][]string
	for i, line := range strings.Split(rest, "\n") {
		if i < 2 { // the rest of the header line, and the rule
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// ticks is names in backticks, comma separated, as the README writes
// them.
func ticks(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, "`"+n+"`")
	}
	return strings.Join(out, ", ")
}

// The provider tables of docs/retrieval.md come from the provider table: a row per
// provider that embeds (its name, key variables and default model) and a
// row per provider that answers (its name and default chat model), plus
// auto, and nothing else.
func TestREADMEProviderTablesMatchTheRows(t *testing.T) {
	b, err := os.ReadFile("../docs/retrieval.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var embedRows, chatRows []string
	for _, r := range readmeTable(t, readme, "| `--embedder` | key | default model (size) |") {
		embedRows = append(embedRows, r[0])
		name := strings.Trim(r[0], "`")
		if r[0] == "`auto` (default)" {
			continue
		}
		p, ok := Providers().Lookup(name)
		if !ok || p.NewEmbedder == nil {
			t.Errorf("README embedder row %s is no provider row that embeds", r[0])
			continue
		}
		if r[1] != ticks(p.KeyEnv) || !strings.HasPrefix(r[2], "`"+p.DefaultEmbedModel+"`") {
			t.Errorf("README row %s: key %q, model %q; the provider row: %s, %s", r[0], r[1], r[2], ticks(p.KeyEnv), p.DefaultEmbedModel)
		}
	}
	for _, r := range readmeTable(t, readme, "| `--chat-provider` | needs | default `--chat-model` |") {
		chatRows = append(chatRows, r[0])
		p, ok := Providers().Lookup(strings.Trim(r[0], "`"))
		if r[0] == "`auto` (default)" {
			continue
		}
		if !ok || p.NewChat == nil || r[2] != "`"+p.DefaultChatModel+"`" || !strings.HasPrefix(r[1], "`"+p.KeyEnv[0]+"`") {
			t.Errorf("README chat row %v does not match the provider row", r[:3])
		}
	}
	for _, p := range Providers() {
		if p.NewEmbedder != nil && !slices.Contains(embedRows, "`"+p.Name+"`") {
			t.Errorf("the README's embedder table has no row for %s", p.Name)
		}
		if p.NewChat != nil && !slices.Contains(chatRows, "`"+p.Name+"`") {
			t.Errorf("the README's chat table has no row for %s", p.Name)
		}
	}
}

// Every row is complete for what it does: one that embeds for Qdrant has
// a key, a model recogniser, a default model and a batch limit.
func TestProviderRowsComplete(t *testing.T) {
	for _, p := range Providers() {
		if p.NewEmbedder == nil {
			if p.NoQdrant == "" {
				t.Errorf("%s embeds nothing and says nothing about it", p.Name)
			}
			continue
		}
		if len(p.KeyEnv) == 0 || p.OwnsEmbedModel == nil || p.DefaultEmbedModel == "" || p.MaxBatch <= 0 {
			t.Errorf("row %s is incomplete: %+v", p.Name, p)
		}
		if !p.OwnsEmbedModel(p.DefaultEmbedModel) {
			t.Errorf("%s does not recognise its own default model %s", p.Name, p.DefaultEmbedModel)
		}
		if p.NewChat != nil && (p.OwnsChatModel == nil || !p.OwnsChatModel(p.DefaultChatModel)) {
			t.Errorf("%s does not recognise its own default chat model %s", p.Name, p.DefaultChatModel)
		}
	}
}

// The input limits of the models ragscope knows come from the rows:
// Cohere's v3 models read 512 tokens, OpenAI's 8191, Gemini's 2048, and
// the offline embedder reads whole texts.
func TestLimitsFromTheTable(t *testing.T) {
	l := Providers().Limits()
	for model, want := range map[string]int{
		"embed-english-v3.0": 512, "text-embedding-3-small": 8191, "text-embedding-3-large": 8191,
		"gemini-embedding-001": 2048, "models/gemini-embedding-001": 2048, "ragscope-local-glove100-sif+chargram-v2": 0,
	} {
		if got := l.For(model); !got.Known || got.Tokens != want {
			t.Errorf("limit of %s = %+v, want %d", model, got, want)
		}
	}
	if got := l.For("some-other-model"); got.Known {
		t.Errorf("an unknown model has a limit: %+v", got)
	}
}

// The rows' vector sizes agree with what each provider's package checks
// its server's answers against.
func TestRowDimsMatchPackages(t *testing.T) {
	known := map[string]func(string) int{config.EmbedderCohere: cohere.KnownDim, config.EmbedderOpenAI: openai.KnownDim, config.EmbedderGemini: gemini.KnownDim}
	for _, p := range Providers() {
		for _, m := range p.Models {
			if m.Dim == 0 {
				continue
			}
			if got := known[p.Name](m.Name); got != m.Dim {
				t.Errorf("%s %s: the row says %d dimensions, its package %d", p.Name, m.Name, m.Dim, got)
			}
		}
	}
}

// A collection's size names the configured provider's models of that
// size, or says it has none and which other provider's models fit.
func TestModelsOfSizeNamesTheConfiguredProvider(t *testing.T) {
	tb := Providers()
	for _, c := range []struct {
		provider string
		size     int
		want     string
	}{
		{config.EmbedderCohere, 1024, "Cohere's embed-english-v3.0 or embed-multilingual-v3.0"},
		{config.EmbedderOpenAI, 1536, "OpenAI's text-embedding-3-small or text-embedding-ada-002"},
		{config.EmbedderGemini, 768, "Gemini's text-embedding-004"},
		{config.EmbedderOpenAI, 768, "no OpenAI model ragscope knows; --embedder gemini with text-embedding-004"},
		{config.EmbedderGemini, 1024, "no Gemini model ragscope knows; --embedder cohere with embed-english-v3.0 or embed-multilingual-v3.0"},
		{config.EmbedderOpenAI, 8, "no OpenAI model ragscope knows"},
	} {
		if got := tb.modelsOfSize(c.provider, c.size); got != c.want {
			t.Errorf("%s, %d: %q, want %q", c.provider, c.size, got, c.want)
		}
	}
}
