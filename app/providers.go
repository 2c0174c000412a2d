package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/provider/embedx"
)

// Provider is one row of the provider table: a service that embeds
// questions, reranks or answers, with the settings that reach it, how its
// model names are recognised, its defaults and limits, and its
// constructors. A nil constructor means the provider does not do that job.
// Adding a provider is one row (in Providers) plus its package and its
// fake server (docs/providers.md).
type Provider struct {
	// ProviderRow is what the configuration reads of the provider: its
	// name, title and the environment variables of its key (a secret:
	// hidden from every message, log and file) and base URL
	// (config.ProviderRow).
	config.ProviderRow
	// Models are the provider's embedding models ragscope knows: their
	// input limits (the chunk audit's) and vector sizes (the size an
	// embedder starts with, bounds --dimensions by and checks every
	// answer against; the provider packages keep no table of their own).
	Models []Model
	// KeyOptional reports whether the configuration reaches a server that
	// needs no key (a local OpenAI-compatible server).
	KeyOptional func(c config.Config) bool
	// LocalServer, for a provider whose base URL alone may serve answers,
	// describes such a server in the "set one of …" hint.
	LocalServer string
	// KeyNote follows the "needs KEY" message (e.g. that a local server
	// needs only a base URL).
	KeyNote string
	// BaseURLPicks: with auto, a base URL set alone chooses the provider.
	BaseURLPicks bool
	// OwnsEmbedModel and OwnsChatModel recognise the provider's model
	// names ("embed-english-v3.0" is Cohere's, "gpt-4o-mini" OpenAI's).
	OwnsEmbedModel func(model string) bool
	OwnsChatModel  func(model string) bool
	// DefaultEmbedModel and DefaultChatModel are the models used when none
	// is named; DefaultRerankModel the rerank model the explorer offers.
	DefaultEmbedModel, DefaultChatModel, DefaultRerankModel string
	// MaxBatch is the most texts one embedding call takes.
	MaxBatch int
	// MaxBatchTokens, when above 0, is the most tokens one embedding call
	// takes (OpenAI: 300,000 across its inputs).
	MaxBatchTokens int
	// IndexCalls is how many embedding calls an index build keeps in
	// flight by default: few enough for the provider's usual rate limits
	// (a 429 is retried after its Retry-After).
	IndexCalls int
	// DocInputType is the input type documents are embedded with
	// (EmbedOptions.Documents), "" when the provider has none; it keys
	// the index build's cache.
	DocInputType string
	// NoQdrant, for a provider that cannot embed questions for a Qdrant
	// collection, says what it does instead.
	NoQdrant string
	// NewEmbedder builds the query embedder of a Qdrant collection (or the
	// document embedder of an index), called through Provider.embedder,
	// which hands it what the row knows of the model (EmbedOptions.Known).
	NewEmbedder func(ctx context.Context, o EmbedOptions) (QueryEmbedder, error)
	// NewReranker builds a rerank model.
	NewReranker func(o ModelOptions) (retrieval.Reranker, error)
	// NewChat builds a chat model.
	NewChat func(o ModelOptions) (retrieval.Generator, error)
}

// Model is what ragscope knows of one embedding model of a provider.
type Model struct {
	// Name is the model's name, or a name prefix ending in "*"
	// ("text-embedding-3-*").
	Name string
	// InputTokens is the tokens the model reads of one text before it
	// cuts the rest (0: the whole text).
	InputTokens int
	// Dim is the model's native vector size (0: not known, learnt from
	// the first answer).
	Dim int
	// Shortens: the model can be asked for fewer dimensions, up to Dim
	// (--dimensions; OpenAI's text-embedding-3 models, Gemini's).
	Shortens bool
}

// matches reports whether the model name m (bare, as bareModel gives
// it) is this model or starts with its prefix.
func (m Model) matches(name string) bool {
	if p, ok := strings.CutSuffix(m.Name, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return m.Name == name
}

// model is the row's model named name (any case, "models/" prefix
// ignored).
func (p Provider) model(name string) (Model, bool) {
	b := bareModel(name)
	for _, m := range p.Models {
		if m.matches(b) {
			return m, true
		}
	}
	return Model{}, false
}

// shorteners names the row's models that can be asked for fewer
// dimensions, with their bounds ("text-embedding-3-small (up to 1536) or
// text-embedding-3-large (up to 3072)"), "" when it has none.
func (p Provider) shorteners() string {
	var names []string
	for _, m := range p.Models {
		if m.Shortens && m.Dim > 0 && !strings.HasSuffix(m.Name, "*") {
			names = append(names, fmt.Sprintf("%s (up to %d)", m.Name, m.Dim))
		}
	}
	return strings.Join(names, " or ")
}

// modelsOfSize names the models of provider's row that make size-long
// vectors ("OpenAI's text-embedding-3-small or text-embedding-ada-002");
// when it has none, it says so and names the other rows' that do, with
// the --embedder that reaches them, so a collection built with another
// provider's model says which. "" when no row knows the size.
func (t Table) modelsOfSize(provider string, size int) string {
	own := ""
	var others []string
	for _, p := range t {
		var names []string
		for _, m := range p.Models {
			if m.Dim == size && !strings.HasSuffix(m.Name, "*") {
				names = append(names, m.Name)
			}
		}
		switch {
		case p.Name == provider && len(names) > 0:
			return p.Title + "'s " + strings.Join(names, " or ")
		case p.Name == provider:
			own = "no " + p.Title + " model ragscope knows"
		case len(names) > 0:
			others = append(others, "--embedder "+p.Name+" with "+strings.Join(names, " or "))
		}
	}
	return strings.Join(slices.DeleteFunc(append([]string{own}, others...), func(s string) bool { return s == "" }), "; ")
}

// Limits are the input limits of every model of the table, for the
// chunk audit (chunkaudit.Limits.For).
func (t Table) Limits() chunkaudit.Limits {
	var out chunkaudit.Limits
	for _, p := range t {
		for _, m := range p.Models {
			out = append(out, chunkaudit.ModelLimit{Model: m.Name, Tokens: m.InputTokens})
		}
	}
	return out
}

// EmbedOptions are what a provider's query embedder is built from.
type EmbedOptions struct {
	// Config is the whole configuration (keys, base URLs).
	Config config.Config
	// Model is the embedding model ("" for the provider's default);
	// Dimensions the vector size asked for (0: the model's).
	Model      string
	Dimensions int
	Timeout    time.Duration
	// Documents embeds documents to index (the provider's DocInputType)
	// rather than questions; MaxAttempts (0: the provider's default) and
	// NoCache (no in-memory cache of vectors) serve an index build.
	Documents   bool
	MaxAttempts int
	NoCache     bool
	// Log is the debug log (nil: none), where a provider may record its
	// calls; every record is redacted by the configuration's secrets.
	Log *slog.Logger
	// Known is what the provider's row knows of Model (the provider's
	// default when Model is ""): its vector size and whether it can be
	// shortened; zero for a model of no row. Shorteners names the row's
	// models that can be, for the message when Model cannot. The
	// provider's embedder reads these, not a table of its own;
	// Provider.embedder fills them.
	Known      Model
	Shorteners string
}

// embedder builds p's embedder with o, handed what p's row knows of the
// model (EmbedOptions.Known, Shorteners).
func (p Provider) embedder(ctx context.Context, o EmbedOptions) (QueryEmbedder, error) {
	o.Known, _ = p.model(cmp.Or(strings.TrimSpace(o.Model), p.DefaultEmbedModel))
	o.Shorteners = p.shorteners()
	return p.NewEmbedder(ctx, o)
}

// cacheSize is the in-memory cache size the options ask for (0: the
// provider's default, -1: none).
func (o EmbedOptions) cacheSize() int {
	if o.NoCache {
		return -1
	}
	return 0
}

// ModelOptions are what a provider's reranker or chat model is built
// from.
type ModelOptions struct {
	Config  config.Config
	Model   string
	Timeout time.Duration
	// Log is the debug log (nil: none), as EmbedOptions.Log.
	Log *slog.Logger
}

// QueryEmbedder is what a Qdrant backend needs of a provider's embedder.
type QueryEmbedder interface {
	retrieval.Embedder
	Dim() int
}

// Table is the provider table: rows in order of preference (auto takes
// the first whose key is set, and the first row when none is).
type Table []Provider

// embedx is the options of p's embedder: the configuration's key and
// base URL, and what the row knows of the model (o.Known).
func (o EmbedOptions) embedx(p Provider) embedx.Options {
	return embedx.Options{APIKey: o.Config.Key(p.Name).Reveal(), BaseURL: o.Config.BaseURL(p.Name), Model: o.Model, Dimensions: o.Dimensions, Timeout: o.Timeout,
		Documents: o.Documents, MaxAttempts: o.MaxAttempts, CacheSize: o.cacheSize(),
		ModelDim: o.Known.Dim, Shortens: o.Known.Shortens, Shorteners: o.Shorteners}
}

// client is the options of p's chat model or reranker.
func (o ModelOptions) client(p Provider) embedx.ClientOptions {
	return embedx.ClientOptions{APIKey: o.Config.Key(p.Name).Reveal(), BaseURL: o.Config.BaseURL(p.Name), Model: o.Model, Timeout: o.Timeout}
}

// bareModel is a model name without case, spaces or a "models/" prefix.
func bareModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:] // "models/text-embedding-004"
	}
	return m
}

// openAIOwnAPI reports whether base is OpenAI's own API, which needs a key
// (a local OpenAI-compatible server such as Ollama, vLLM, LM Studio or TEI
// does not).
func openAIOwnAPI(base string) bool {
	b := strings.ToLower(strings.TrimSpace(base))
	return b == "" || strings.Contains(b, "://api.openai.com")
}

// Lookup returns the row named name.
func (t Table) Lookup(name string) (Provider, bool) {
	for _, p := range t {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// hasKey reports whether p's key is set in c.
func (p Provider) hasKey(c config.Config) bool { return len(p.KeyEnv) > 0 && c.Key(p.Name).IsSet() }

// hasBaseURL reports whether p's base URL is set in c.
func (p Provider) hasBaseURL(c config.Config) bool { return c.BaseURL(p.Name) != "" }

// keyName is the first name of p's key variable.
func (p Provider) keyName() string {
	if len(p.KeyEnv) == 0 {
		return ""
	}
	return p.KeyEnv[0]
}

// keyEnvText is p's key variables: "COHERE_API_KEY (or CO_API_KEY)".
func (p Provider) keyEnvText() string {
	if len(p.KeyEnv) < 2 {
		return p.keyName()
	}
	return p.keyName() + " (or " + strings.Join(p.KeyEnv[1:], ", or ") + ")"
}

// canChat reports whether p has what it needs to answer: a key, or a base
// URL of a server that needs none.
func (p Provider) canChat(c config.Config) bool {
	return p.NewChat != nil && (p.hasKey(c) || (p.KeyOptional != nil && p.KeyOptional(c)))
}

// ModelProvider names the provider that publishes the embedding model,
// from its name, or "" (a local server's nomic-embed-text, say).
func (t Table) ModelProvider(model string) string {
	for _, p := range t {
		if p.OwnsEmbedModel != nil && p.OwnsEmbedModel(model) {
			return p.Name
		}
	}
	return ""
}

// ResolveEmbedder is the provider that embeds questions for a Qdrant
// collection, and why auto chose it: the one asked for; with auto, the
// publisher of a model named with --model (the default model does not
// count), else the first provider whose key is set, else the first whose
// base URL picks it (a local OpenAI-compatible server needs no key), else
// the first row.
func (t Table) ResolveEmbedder(c config.Config) (provider, why string) {
	e, _ := t.ConfigRows().ParseEmbedder(c.Embedder)
	if e != config.EmbedderAuto {
		return e, ""
	}
	if c.EmbedModel != config.DefaultEmbedModel {
		if p := t.ModelProvider(c.EmbedModel); p != "" {
			return p, fmt.Sprintf("the model %s is %s's", c.EmbedModel, p)
		}
	}
	for _, p := range t {
		if p.NewEmbedder != nil && p.hasKey(c) {
			return p.Name, p.keyName() + " is set"
		}
	}
	for _, p := range t {
		if p.NewEmbedder != nil && p.BaseURLPicks && p.hasBaseURL(c) {
			return p.Name, p.BaseURLEnv[0] + " is set"
		}
	}
	if len(t) == 0 {
		return "", ""
	}
	return t[0].Name, ""
}

// ResolvedEmbedder is ResolveEmbedder's provider.
func (t Table) ResolvedEmbedder(c config.Config) string {
	p, _ := t.ResolveEmbedder(c)
	return p
}

// EmbedderChoice explains an auto choice when it was not obvious (more than
// one provider key set); "" otherwise.
func (t Table) EmbedderChoice(c config.Config) string {
	e, _ := t.ConfigRows().ParseEmbedder(c.Embedder)
	if e != config.EmbedderAuto {
		return ""
	}
	var set, order []string
	for _, p := range t {
		if p.NewEmbedder == nil || len(p.KeyEnv) == 0 {
			continue
		}
		order = append(order, p.Name)
		if p.hasKey(c) {
			set = append(set, p.keyName())
		}
	}
	if len(set) < 2 {
		return ""
	}
	p, why := t.ResolveEmbedder(c)
	if t.ModelProvider(c.EmbedModel) == p && c.EmbedModel != config.DefaultEmbedModel {
		return fmt.Sprintf("embedder: %s chosen because %s (%s are all set; pass --embedder to choose)", p, why, strings.Join(set, " and "))
	}
	return fmt.Sprintf("embedder: %s chosen because %s are all set (auto prefers %s; pass --embedder to choose)", p, strings.Join(set, " and "), strings.Join(order, ", then "))
}

// ResolvedChatProvider is the provider that answers: the one asked for;
// with auto, the publisher of a --chat-model named by it, else the query
// embedder's provider when it can chat (Qdrant), else the first row that
// can chat (a key, or a base URL of a server that needs none). "" means no
// chat model is configured.
func (t Table) ResolvedChatProvider(c config.Config) string {
	name, _ := t.ConfigRows().ParseChatProvider(c.ChatProvider)
	if name != config.ChatAuto {
		return name
	}
	for _, p := range t {
		if p.OwnsChatModel != nil && p.OwnsChatModel(c.ChatModel) && p.canChat(c) {
			return p.Name
		}
	}
	if c.Resolved() == config.BackendQdrant {
		if p, ok := t.Lookup(t.ResolvedEmbedder(c)); ok && p.canChat(c) {
			return p.Name
		}
	}
	for _, p := range t {
		if p.canChat(c) {
			return p.Name
		}
	}
	return ""
}

// ChatHint says which settings enable answers; every "no chat model"
// message ends with it.
func (t Table) ChatHint() string {
	var keys, servers []string
	for _, p := range t {
		if p.NewChat == nil {
			continue
		}
		if k := p.keyName(); k != "" {
			keys = append(keys, k+" ("+p.Title+")")
		}
		if p.LocalServer != "" && len(p.BaseURLEnv) > 0 {
			servers = append(servers, p.BaseURLEnv[0]+" for "+p.LocalServer)
		}
	}
	return "set " + listOr(append(keys, servers...), ", ", ", or ") + "; --chat-provider chooses when several are set"
}

// ExplorerChatHint is the explorer's Answer pane text without a chat
// model.
func (t Table) ExplorerChatHint() string {
	return "To enable answers, " + t.ChatHint() + ". RAGSCOPE_CHAT_PROVIDER (" + listOr(append([]string{config.ChatAuto}, t.chatNames()...), ", ", " or ") + ") and RAGSCOPE_CHAT_MODEL pick the provider and the model."
}

// chatNames are the rows that answer.
func (t Table) chatNames() []string {
	return t.names(func(p Provider) bool { return p.NewChat != nil })
}

// embedNames are the rows that embed questions for a Qdrant collection.
func (t Table) embedNames() []string {
	return t.names(func(p Provider) bool { return p.NewEmbedder != nil })
}

// names are the names of the rows that do what does says.
func (t Table) names(does func(Provider) bool) []string {
	var out []string
	for _, p := range t {
		if does(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// ConfigRows is the configuration's part of every row (config.Load's
// LoadOptions.Providers): the names --embedder (every row) and
// --chat-provider (the rows that answer) accept, and the settings of each
// provider's key and base URL.
func (t Table) ConfigRows() config.ProviderTable {
	out := make(config.ProviderTable, len(t))
	for i, p := range t {
		out[i] = p.ProviderRow
		out[i].Chats = p.NewChat != nil
	}
	return out
}

// SettingHelp is the --help text of the settings whose help names the
// providers' models (chat_model, rerank_model), from the table; ok is
// false for other settings (the embedder's and chat provider's list the
// table's names from config.ProviderTable.Settings).
func (t Table) SettingHelp(setting string) (help string, ok bool) {
	switch setting {
	case "chat_model":
		var defs []string
		for _, p := range t {
			if p.NewChat != nil && p.DefaultChatModel != "" {
				defs = append(defs, p.DefaultChatModel+" on "+p.Title)
			}
		}
		return "chat model for answers (default: " + strings.Join(defs, ", ") + ")", true
	case "rerank_model":
		p, ok := t.rerankProvider()
		if !ok {
			return "", false
		}
		return fmt.Sprintf("rerank the candidates with this model: a %s model (%s; needs %s) or bm25 (offline, no key); empty: no reranking", p.Title, p.DefaultRerankModel, p.keyName()), true
	}
	return "", false
}

// listOr joins items with sep, and the last with last ("a, b or c").
func listOr(items []string, sep, last string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], sep) + last + items[len(items)-1]
}

// keyText is p's key variables for messages: "GEMINI_API_KEY (or
// GOOGLE_API_KEY, or [gemini] api_key in ragscope.toml)".
func (p Provider) keyText() string {
	alts := append([]string(nil), p.KeyEnv[1:]...)
	if sec, key, ok := strings.Cut(p.KeyTOML(), "."); ok {
		alts = append(alts, "["+sec+"] "+key+" in ragscope.toml")
	}
	if len(alts) == 0 {
		return p.keyName()
	}
	return p.keyName() + " (or " + strings.Join(alts, ", or ") + ")"
}

// embedderProblems are the configuration's problems with the query
// embedder of a Qdrant collection (embeds: a question is embedded; a store
// command needs no key).
func (t Table) embedderProblems(c config.Config, embeds bool) []string {
	var probs []string
	name := t.ResolvedEmbedder(c)
	p, ok := t.Lookup(name)
	switch {
	case !ok:
	case p.NoQdrant != "":
		probs = append(probs, fmt.Sprintf("--embedder %s %s: use %s", p.Name, p.NoQdrant, listOr(t.embedNames(), ", ", " or ")))
	case !embeds || p.hasKey(c) || (p.KeyOptional != nil && p.KeyOptional(c)):
	case len(t) > 0 && p.Name == t[0].Name:
		// The first row is also auto's choice when nothing is set: say
		// every key that would do.
		var others, titles []string
		for _, o := range t[1:] {
			if o.NewEmbedder != nil && o.keyName() != "" {
				others = append(others, o.keyName())
				titles = append(titles, o.Title)
			}
		}
		otherKeySet := false
		for _, o := range t[1:] {
			otherKeySet = otherKeySet || (o.NewEmbedder != nil && o.hasKey(c))
		}
		first := p.keyEnvText()
		if c.EmbedModel != config.DefaultEmbedModel && t.ModelProvider(c.EmbedModel) == p.Name && otherKeySet {
			probs = append(probs, fmt.Sprintf("%s is a %s model: set %s to embed with it, or pass the %s model your collection was built with (--model)", c.EmbedModel, p.Title, first, listOr(titles, ", ", " or ")))
		} else {
			probs = append(probs, "no embedder API key: set "+first+", or "+listOr(others, " or ", " or ")+", to embed questions")
		}
	default:
		probs = append(probs, "--embedder "+p.Name+" needs "+p.keyText()+p.KeyNote)
	}
	return probs
}

// Validate checks that the configuration can be used to ask questions,
// saying what to set. The error wraps retrieval.ErrConfig.
func (t Table) Validate(c config.Config) error { return t.validate(c, true) }

// ValidateStore is Validate for commands that read the store but embed no
// question (stats, links): the embedder's key is not asked for.
func (t Table) ValidateStore(c config.Config) error { return t.validate(c, false) }

func (t Table) validate(c config.Config, embeds bool) error {
	c.Providers = t.ConfigRows()
	probs := c.Problems()
	if c.Resolved() == config.BackendQdrant {
		probs = append(probs, t.embedderProblems(c, embeds)...)
	}
	probs = append(probs, t.rerankProblems(c)...)
	return config.ProblemsError(probs)
}

// rerankProblems says what a rerank model other than bm25 lacks: the key
// of the row that serves rerank models (rerankProvider), or such a row.
func (t Table) rerankProblems(c config.Config) []string {
	m := strings.TrimSpace(c.RerankModel)
	if m == "" || strings.EqualFold(m, config.BM25Reranker) {
		return nil
	}
	p, ok := t.rerankProvider()
	switch {
	case !ok:
		return []string{fmt.Sprintf("--rerank %s: no provider reranks in this build; use --rerank bm25 (offline, no key)", m)}
	case len(p.KeyEnv) > 0 && !p.hasKey(c):
		return []string{fmt.Sprintf("--rerank %s is a %s rerank model: set %s, or use --rerank bm25 (offline, no key)", m, p.Title, p.keyEnvText())}
	}
	return nil
}
