package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"ragscope/internal/redact"
	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// Setting is one configuration setting: where it is read from, its one
// parser and how to show its value. Flags, the environment, ragscope.toml,
// --help and the table in docs/configuration.md are all derived from Settings, so a setting
// has one parser and one default (the one in Default).
type Setting struct {
	// Name is the setting's name in messages.
	Name string
	// Flag is the persistent command-line flag ("" for none); Short its
	// one-letter form.
	Flag, Short string
	// CommandFlag is a flag that subcommands define themselves (e.g.
	// query's --top-k); --help shows the setting's effective default on it.
	CommandFlag string
	// Env lists the environment variables, preferred first.
	Env []string
	// TOML lists the ragscope.toml keys ("section.key"), preferred first.
	TOML []string
	// Type names the value's kind in help ("string", "int", "duration"…).
	Type string
	// Help says what the setting does.
	Help string
	// Secret settings are never shown, not even their default.
	Secret bool
	// URL marks a setting whose value is a URL: Config.Redacted hides its
	// credentials (redact.URL), Config.Secrets hides them wherever they
	// appear, and the planted-secret tests plant them in each.
	URL bool
	// Reveal returns the value of a Secret or URL setting, for redaction
	// and the planted-secret tests; never shown.
	Reveal func(c Config) string
	// Set parses s and stores it: the setting's one parser.
	Set func(c *Config, s string) error
	// Get formats the current value for --help ("" for none).
	Get func(c Config) string
}

// Settings is the table of every setting ragscope reads with the
// providers of t: the settings of the store, the embedder, each
// provider's key and base URL (ProviderRow), the chat model, local
// indexes, hybrid search, ranking and the site. It is a new slice on
// each call; the Env and TOML lists are shared, read them only.
func (t ProviderTable) Settings() []Setting {
	b := baseSettings()
	out := make([]Setting, 0, len(b.head)+len(b.tail)+2*len(t))
	out = append(out, b.head...)
	out = append(out, t.settings()...)
	out = append(out, b.tail...)
	if len(t) == 0 {
		return out
	}
	for i, s := range out {
		switch s.Name {
		case "embedder":
			out[i].Help = "embedder: " + orList(t.names(func(ProviderRow) bool { return true }))
		case "chat_provider":
			out[i].Help = "chat model provider for answers (ask, eval --answer): " + orList(t.names(func(r ProviderRow) bool { return r.Chats }))
		}
	}
	return out
}

// orList is auto and names: "auto, cohere or local".
func orList(names []string) string {
	all := append([]string{EmbedderAuto}, names...)
	if len(all) == 1 {
		return all[0]
	}
	return strings.Join(all[:len(all)-1], ", ") + " or " + all[len(all)-1]
}

// settingTable is the settings that do not depend on the providers:
// those before the providers' (head) and after them (tail).
type settingTable struct{ head, tail []Setting }

// baseSettings is the settings that do not depend on the providers, built
// once.
var baseSettings = sync.OnceValue(func() settingTable {
	return settingTable{
		head: slices.Concat(storeSettings(), embedderSettings()),
		tail: slices.Concat(chatSettings(), localSettings(), hybridSettings(), rankSettings(), siteSettings()),
	}
})

// storeSettings are where chunks come from: the backend and the Qdrant collection.
func storeSettings() []Setting {
	return []Setting{
		{Name: "backend", Flag: "backend", Env: []string{"RAGSCOPE_BACKEND"}, TOML: []string{"backend"},
			Help: "auto, demo, local or qdrant (auto: qdrant if QDRANT_URL is set, local if --index/--docs, else demo)",
			Set:  func(c *Config, s string) (err error) { c.Backend, err = ParseBackend(s); return err },
			Get:  func(c Config) string { return string(c.Backend) }},
		{Name: "qdrant_url", Flag: "qdrant-url", Env: []string{"QDRANT_URL"}, TOML: []string{"qdrant.url"},
			Help: "Qdrant URL, REST or gRPC form (https://host:6333, host:6334, …); selects the Qdrant backend",
			URL:  true, Reveal: func(c Config) string { return c.QdrantURL },
			Set: str(func(c *Config) *string { return &c.QdrantURL })},
		{Name: "qdrant_api_key", Env: []string{"QDRANT_API_KEY"}, TOML: []string{"qdrant.api_key"}, Secret: true,
			Reveal: func(c Config) string { return c.QdrantAPIKey.Reveal() },
			Help:   "Qdrant API key (sent as gRPC metadata; never printed)",
			Set:    secret(func(c *Config) *Secret { return &c.QdrantAPIKey })},
		{Name: "collection", Flag: "collection", Env: []string{"QDRANT_COLLECTION", "COLLECTION_NAME"}, TOML: []string{"qdrant.collection"},
			Help: "Qdrant collection name",
			Set:  str(func(c *Config) *string { return &c.Collection })},
	}
}

// embedderSettings are how questions are embedded (the providers' keys and base URLs come from the provider table).
func embedderSettings() []Setting {
	return []Setting{
		{Name: "embedder", Flag: "embedder", Env: []string{"RAGSCOPE_EMBEDDER"}, TOML: []string{"embedder.provider"},
			Help: "embedder: auto or a provider of the table (ProviderTable.Settings names them)",
			Set:  func(c *Config, s string) (err error) { c.Embedder, err = c.Providers.ParseEmbedder(s); return err },
			Get:  func(c Config) string { return c.Embedder }},
		{Name: "embed_model", Flag: "model", Env: []string{"RAGSCOPE_EMBED_MODEL", "EMBEDDING_MODEL"}, TOML: []string{"embedder.model", "cohere.model"},
			Help: "embedding model (must match the collection's vectors)",
			Set:  str(func(c *Config) *string { return &c.EmbedModel }),
			Get:  func(c Config) string { return c.EmbedModel }},
		{Name: "embed_dimensions", Flag: "dimensions", Env: []string{"RAGSCOPE_EMBED_DIMENSIONS"}, TOML: []string{"embedder.dimensions"}, Type: "int",
			Help: "vector size to ask the embedder for (0: the model's)",
			Set: func(c *Config, s string) error {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					return errors.New("not a whole number >= 0")
				}
				c.EmbedDimensions = n
				return nil
			}},
	}
}

// chatSettings are who answers.
func chatSettings() []Setting {
	return []Setting{
		{Name: "chat_provider", Flag: "chat-provider", Env: []string{"RAGSCOPE_CHAT_PROVIDER"}, TOML: []string{"chat.provider"},
			Help: "chat model provider for answers (ask, eval --answer): auto or a provider that answers (ProviderTable.Settings names them)",
			Set: func(c *Config, s string) (err error) {
				c.ChatProvider, err = c.Providers.ParseChatProvider(s)
				return err
			},
			Get: func(c Config) string { return c.ChatProvider }},
		{Name: "chat_model", Flag: "chat-model", Env: []string{"RAGSCOPE_CHAT_MODEL"}, TOML: []string{"chat.model"},
			Help: "chat model for answers (default: the provider's)",
			Set:  str(func(c *Config) *string { return &c.ChatModel })},
	}
}

// localSettings are the demo's and local indexes' source and ranking.
func localSettings() []Setting {
	return []Setting{
		{Name: "index", Flag: "index", Env: []string{"RAGSCOPE_INDEX"}, TOML: []string{"local.index"},
			Help: "explore a saved local index file made by 'ragscope index'",
			Set:  str(func(c *Config) *string { return &c.IndexFile })},
		{Name: "docs", Flag: "docs", Env: []string{"RAGSCOPE_DOCS"}, TOML: []string{"local.docs"},
			Help: "explore a Docusaurus docs folder, indexed on the fly",
			Set:  str(func(c *Config) *string { return &c.DocsDir })},
		{Name: "local_search", Flag: "local-search", Env: []string{"RAGSCOPE_LOCAL_SEARCH"}, TOML: []string{"local.search"},
			Help: "how the demo and local indexes rank: bm25 (the default with the offline embedder), hybrid (BM25 fused with the index's embedder; the default for an index built with a provider's embeddings) or embedder",
			Set:  func(c *Config, s string) (err error) { c.LocalSearch, err = ParseLocalSearch(s); return err },
			Get:  func(c Config) string { return c.LocalSearch }},
	}
}

// hybridSettings are how a collection with a dense and a sparse vector is searched.
func hybridSettings() []Setting {
	return []Setting{
		{Name: "fusion", Flag: "fusion", Env: []string{"RAGSCOPE_FUSION"}, TOML: []string{"retrieval.fusion"},
			Help: "how a collection with a sparse vector beside the dense one is searched: rrf, dbsf (both vectors, fused), dense or sparse (one); auto: rrf when it has both",
			Set:  func(c *Config, s string) (err error) { c.Fusion, err = ParseFusion(s); return err },
			Get:  func(c Config) string { return c.Fusion }},
		{Name: "rrf_k", Flag: "rrf-k", Env: []string{"RAGSCOPE_RRF_K"}, TOML: []string{"retrieval.rrf_k"}, Type: "int",
			Help: "RRF constant k of a hybrid search: a hit at rank r of an arm adds 1/(r − 1 + k) (0: Qdrant's default, 2)",
			Set:  intSetting(func(c *Config) *int { return &c.RRFK })},
		{Name: "prefetch_limit", Flag: "prefetch-limit", Env: []string{"RAGSCOPE_PREFETCH_LIMIT"}, TOML: []string{"retrieval.prefetch_limit"}, Type: "int",
			Help: "chunks each arm of a hybrid search returns before fusion (0: 5 × top_k)",
			Set:  intSetting(func(c *Config) *int { return &c.PrefetchLimit })},
		{Name: "dense_vector", Flag: "dense-vector", Env: []string{"RAGSCOPE_DENSE_VECTOR"}, TOML: []string{"qdrant.dense_vector"},
			Help: "the collection's named dense vector to search (default: its first)",
			Set:  str(func(c *Config) *string { return &c.DenseVector })},
		{Name: "sparse_vector", Flag: "sparse-vector", Env: []string{"RAGSCOPE_SPARSE_VECTOR"}, TOML: []string{"qdrant.sparse_vector"},
			Help: "the collection's sparse vector to search (default: its first)",
			Set:  str(func(c *Config) *string { return &c.SparseVector })},
		{Name: "sparse_model", Env: []string{"RAGSCOPE_SPARSE_MODEL"}, TOML: []string{"qdrant.sparse_model"},
			Help: "the model that made the sparse vector (default: qdrant/bm25 for a vector with the idf modifier); ragscope runs qdrant/bm25 only",
			Set:  str(func(c *Config) *string { return &c.SparseModel })},
	}
}

// rankSettings are what a query keeps: how many chunks, the cuts, the reranker and the timeout.
func rankSettings() []Setting {
	return []Setting{
		{Name: "top_k", CommandFlag: "top-k", Env: []string{"RAGSCOPE_TOP_K"}, TOML: []string{"retrieval.top_k"}, Type: "int",
			Help: fmt.Sprintf("number of chunks to retrieve, %d..%d", retrieval.MinTopK, retrieval.MaxTopK),
			Set:  intSetting(func(c *Config) *int { return &c.TopK }),
			Get:  func(c Config) string { return strconv.Itoa(c.TopK) }},
		{Name: "threshold", CommandFlag: "threshold", Env: []string{"RAGSCOPE_THRESHOLD"}, TOML: []string{"retrieval.threshold"}, Type: "float",
			Help: "minimum score a chunk needs, 0..1",
			Set:  floatSetting(func(c *Config) *float64 { return &c.Threshold }),
			Get:  func(c Config) string { return strconv.FormatFloat(c.Threshold, 'g', -1, 64) }},
		{Name: "dedup", Env: []string{"RAGSCOPE_DEDUP"}, TOML: []string{"retrieval.dedup"}, Type: "bool",
			Help: "drop near-duplicate chunks (true or false; --no-dedup turns it off)",
			Set: func(c *Config, s string) error {
				b, err := strconv.ParseBool(s)
				if err != nil {
					return errors.New("not true or false")
				}
				c.Dedup = b
				return nil
			},
			Get: func(c Config) string { return strconv.FormatBool(c.Dedup) }},
		{Name: "rerank_model", Flag: "rerank", Env: []string{"RAGSCOPE_RERANK_MODEL"}, TOML: []string{"rerank.model"},
			Help: "rerank the candidates with this model: a provider's rerank model or bm25 (offline, no key); empty: no reranking",
			Set:  str(func(c *Config) *string { return &c.RerankModel }),
			Get:  func(c Config) string { return c.RerankModel }},
		{Name: "rerank_candidates", Flag: "rerank-candidates", Env: []string{"RAGSCOPE_RERANK_CANDIDATES"}, TOML: []string{"rerank.candidates"}, Type: "int",
			Help: fmt.Sprintf("with --rerank, search top_k × this many chunks (at most %d) and rerank them, 1..%d", retrieval.MaxRerankCandidates, retrieval.MaxRerankCandidates),
			Set:  intSetting(func(c *Config) *int { return &c.RerankCandidates }),
			Get:  func(c Config) string { return strconv.Itoa(c.RerankCandidates) }},
		{Name: "rerank_threshold", Flag: "rerank-threshold", Env: []string{"RAGSCOPE_RERANK_THRESHOLD"}, TOML: []string{"rerank.threshold"}, Type: "float",
			Help: "with --rerank, minimum relevance score a chunk needs, 0..1",
			Set:  floatSetting(func(c *Config) *float64 { return &c.RerankThreshold }),
			Get:  func(c Config) string { return strconv.FormatFloat(c.RerankThreshold, 'g', -1, 64) }},
		{Name: "timeout", Flag: "timeout", Env: []string{"RAGSCOPE_TIMEOUT"}, TOML: []string{"retrieval.timeout"}, Type: "duration",
			Help: "timeout of each network call, e.g. 10s or 10",
			Set:  func(c *Config, s string) (err error) { c.Timeout, err = ParseTimeout(s); return err },
			Get:  func(c Config) string { return c.Timeout.String() }},
	}
}

// siteSettings are the site citations are built on, its facets and the debug log.
func siteSettings() []Setting {
	return []Setting{
		{Name: "base_url", Flag: "base-url", Env: []string{"RAGSCOPE_BASE_URL"}, TOML: []string{"site.base_url"},
			Help: "URL of the docs route citation URLs are built on, e.g. https://me.github.io/book/docs/",
			URL:  true, Reveal: func(c Config) string { return c.DocsBaseURL },
			Set: shownURL("base_url", func(c *Config) *string { return &c.DocsBaseURL })},
		{Name: "site_url", Flag: "site-url", Env: []string{"RAGSCOPE_SITE_URL"}, TOML: []string{"site.site_url"},
			Help: "site origin joined to site-relative payload URLs",
			URL:  true, Reveal: func(c Config) string { return c.SiteURL },
			Set: shownURL("site_url", func(c *Config) *string { return &c.SiteURL })},
		{Name: "slug_style", Flag: "slug-style", Env: []string{"RAGSCOPE_SLUG_STYLE"}, TOML: []string{"site.slug_style"},
			Help: "heading anchor rule: github (as Docusaurus) or simple",
			Set: func(c *Config, s string) error {
				st, err := docusaurus.ParseSlugStyle(s)
				if err != nil {
					return errors.New(`use "github" (Docusaurus heading ids) or "simple"`)
				}
				c.SlugStyle = string(st)
				return nil
			},
			Get: func(c Config) string { return c.SlugStyle }},
		{Name: "site_dir", Flag: "site", Env: []string{"RAGSCOPE_SITE_DIR"}, TOML: []string{"site.dir"},
			Help: "local Docusaurus site folder (docusaurus.config.js + docs/): link checks, and the base URL and trailingSlash of built citations",
			Set:  str(func(c *Config) *string { return &c.SiteDir })},
		{Name: "module_dir_depth", Env: []string{"RAGSCOPE_MODULE_DIR_DEPTH"}, TOML: []string{"facets.module_dir_depth"}, Type: "int",
			Help: "local indexes: the folder level under docs that names a chunk's module (1: docs/<module>/, 2: docs/modules/<module>/; 0 detects it)",
			Set: func(c *Config, s string) error {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 || n > 6 {
					return errors.New("not a whole number 0..6")
				}
				c.ModuleDirDepth = n
				return nil
			}},
		{Name: "debug", Flag: "debug",
			Help: "write debug logs to this file (mode 0600)",
			Set:  str(func(c *Config) *string { return &c.DebugLog })},
	}
}

// str is the parser of a free-form string setting.
func str(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, s string) error { *field(c) = s; return nil }
}

// shownURL is the parser of a URL ragscope only shows, never signs in
// with: the docs base and site origin citation URLs are built on. Its
// credentials (user information, key=, token=… by the rule of
// redact.Strip) are dropped, with a note, as every citation built on it
// would print them.
func shownURL(name string, field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, s string) error {
		v, cut := redact.Strip(s)
		*field(c) = v
		if cut {
			c.Notes = append(c.Notes, name+": credentials in the URL dropped (citation URLs built on it are printed and copied)")
		}
		return nil
	}
}

// URLSettings returns the settings whose value is a URL.
func (t ProviderTable) URLSettings() []Setting {
	var out []Setting
	for _, s := range t.Settings() {
		if s.URL {
			out = append(out, s)
		}
	}
	return out
}

// intSetting is the parser of a whole-number setting.
func intSetting(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return errors.New("not a whole number")
		}
		*field(c) = n
		return nil
	}
}

// floatSetting is the parser of a number (the range is Problems' to check).
func floatSetting(field func(*Config) *float64) func(*Config, string) error {
	return func(c *Config, s string) error {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return errors.New("not a number")
		}
		*field(c) = f
		return nil
	}
}

// secret is the parser of a credential.
func secret(field func(*Config) *Secret) func(*Config, string) error {
	return func(c *Config, s string) error { *field(c) = Secret(s); return nil }
}

// Lookup returns the setting with the given persistent or command flag.
func Lookup(flag string) (Setting, bool) {
	b := baseSettings()
	for _, list := range [][]Setting{b.head, b.tail} {
		for _, s := range list {
			if flag != "" && (s.Flag == flag || s.CommandFlag == flag) {
				return s, true
			}
		}
	}
	return Setting{}, false
}

// tomlValue turns a decoded TOML value into the text a Setting parses.
func tomlValue(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(t), nil
	case time.Duration:
		return t.String(), nil
	}
	return "", errors.New("must be a string, number or boolean")
}
