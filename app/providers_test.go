package app

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"ragscope/config"
	"ragscope/retrieval"
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

// The rows hold the vector sizes of the published models, whether they
// can be shortened, and nothing for a model they do not name.
func TestRowModelFacts(t *testing.T) {
	tb := Providers()
	for _, c := range []struct {
		provider, model string
		dim             int
		shortens        bool
	}{
		{config.EmbedderCohere, "embed-english-v3.0", 1024, false},
		{config.EmbedderCohere, "embed-multilingual-light-v3.0", 384, false},
		{config.EmbedderCohere, "embed-english-v2.0", 0, false},
		{config.EmbedderOpenAI, "text-embedding-3-small", 1536, true},
		{config.EmbedderOpenAI, "text-embedding-3-large", 3072, true},
		{config.EmbedderOpenAI, "text-embedding-ada-002", 1536, false},
		{config.EmbedderOpenAI, "text-embedding-3-next", 0, false},
		{config.EmbedderOpenAI, "nomic-embed-text", 0, false},
		{config.EmbedderGemini, "gemini-embedding-001", 3072, true},
		{config.EmbedderGemini, "models/text-embedding-004", 768, true},
		{config.EmbedderGemini, "embedding-001", 0, false},
	} {
		p, _ := tb.Lookup(c.provider)
		if m, _ := p.model(c.model); m.Dim != c.dim || m.Shortens != c.shortens {
			t.Errorf("%s %s: %+v, want dim %d, shortens %v", c.provider, c.model, m, c.dim, c.shortens)
		}
	}
	if p, _ := tb.Lookup(config.EmbedderOpenAI); p.shorteners() != "text-embedding-3-small (up to 1536) or text-embedding-3-large (up to 3072)" {
		t.Errorf("OpenAI's shorteners: %q", p.shorteners())
	}
}

// shortener is what the Qdrant backend asks of an embedder whose vectors
// can be shortened.
type shortener interface {
	QueryEmbedder
	shortable
}

// A model's vector size reaches its provider's embedder from the row
// alone: a model only the row knows starts with the row's size, bounds
// --dimensions by it, and a model of no row keeps its size unknown.
func TestRowModelSizeReachesTheEmbedder(t *testing.T) {
	tb := Providers()
	for i := range tb {
		tb[i].Models = append(tb[i].Models, Model{Name: "acme-embed-1", Dim: 640, Shortens: true}, Model{Name: "acme-fixed-1", Dim: 200})
	}
	cfg := config.Config{Keys: map[string]config.Secret{}, BaseURLs: map[string]string{}}
	for _, name := range []string{config.EmbedderCohere, config.EmbedderOpenAI, config.EmbedderGemini} {
		cfg.Keys[name] = "k"
		cfg.BaseURLs[name] = "http://127.0.0.1:1/v1" // never called: New makes no request
	}
	ctx := context.Background()
	// open builds provider's embedder of model and says its size (-1
	// when it could not be built).
	open := func(provider, model string, dims int) (int, QueryEmbedder, error) {
		p, _ := tb.Lookup(provider)
		e, err := p.embedder(ctx, EmbedOptions{Config: cfg, Model: model, Dimensions: dims})
		if err != nil {
			return -1, nil, err
		}
		return e.Dim(), e, nil
	}
	for _, provider := range []string{config.EmbedderCohere, config.EmbedderOpenAI, config.EmbedderGemini} {
		if d, _, err := open(provider, "acme-fixed-1", 0); d != 200 {
			t.Errorf("%s acme-fixed-1: Dim %d (%v); want the row's 200", provider, d, err)
		}
		if d, _, err := open(provider, "unlisted-embed", 0); d != 0 {
			t.Errorf("%s, a model of no row: Dim %d (%v); want 0, unknown", provider, d, err)
		}
	}
	for provider, want := range map[string]int{config.EmbedderCohere: 1024, config.EmbedderOpenAI: 1536, config.EmbedderGemini: 3072} {
		if d, _, err := open(provider, "", 0); d != want {
			t.Errorf("%s's default model: Dim %d (%v); want its row's %d", provider, d, err, want)
		}
	}
	for _, provider := range []string{config.EmbedderOpenAI, config.EmbedderGemini} {
		d, e, err := open(provider, "acme-embed-1", 0)
		if se, ok := e.(shortener); !ok || d != 640 || se.Shortable() != 640 {
			t.Fatalf("%s acme-embed-1: %T, Dim %d (%v); want 640, shortable to 640", provider, e, d, err)
		}
		if _, _, err := open(provider, "acme-embed-1", 641); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "at most 640") {
			t.Errorf("%s --dimensions 641: %v; want the row's bound, at most 640", provider, err)
		}
		if d, _, err := open(provider, "acme-embed-1", 320); d != 320 {
			t.Errorf("%s --dimensions 320: Dim %d (%v)", provider, d, err)
		}
	}
	_, _, err := open(config.EmbedderOpenAI, "acme-fixed-1", 100)
	if want := "acme-fixed-1 only makes 200-dimensional vectors; --dimensions 100 needs text-embedding-3-small (up to 1536) or text-embedding-3-large (up to 3072) or acme-embed-1 (up to 640)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("openai acme-fixed-1 --dimensions 100: %v; want %q", err, want)
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
