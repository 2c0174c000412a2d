// Package config resolves ragscope's configuration once, before any backend
// or UI starts: defaults, then ragscope.toml, then the environment (with a
// .env file in the working directory filling variables the environment does
// not set), then command-line flags; Validate checks the result and says
// what to fix. API keys are Secret values that never print.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"ragscope/internal/redact"
	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
)

// Backend names where chunks come from.
type Backend string

// Backends.
const (
	// BackendAuto picks Qdrant when QDRANT_URL is set, else a local index
	// when --index/--docs is given, else the demo.
	BackendAuto Backend = "auto"
	// BackendDemo is the embedded demo textbook with the offline embedder.
	BackendDemo Backend = "demo"
	// BackendLocal is a local docs folder or saved index.
	BackendLocal Backend = "local"
	// BackendQdrant is a Qdrant collection embedded with Cohere.
	BackendQdrant Backend = "qdrant"
)

// String returns the backend's name.
func (b Backend) String() string { return string(b) }

// ParseBackend accepts auto, demo, local and qdrant.
func ParseBackend(s string) (Backend, error) {
	switch b := Backend(strings.ToLower(strings.TrimSpace(s))); b {
	case "", BackendAuto:
		return BackendAuto, nil
	case BackendDemo, BackendLocal, BackendQdrant:
		return b, nil
	}
	return "", errors.New("unknown backend: use auto, demo, local or qdrant")
}

// ParseTimeout reads a timeout: a Go duration ("30s", "1m") or a number of
// seconds ("10", "2.5"). It must be positive. It is the one parser of the
// timeout for flags, the environment and ragscope.toml.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		d = time.Duration(n * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, errors.New("not a duration like 10s or 1m")
	}
	if d <= 0 {
		return 0, errors.New("must be a positive duration like 10s")
	}
	return d, nil
}

// Defaults.
const (
	DefaultEmbedModel = "embed-english-v3.0"
	DefaultTopK       = retrieval.DefaultTopK
	DefaultTimeout    = 30 * time.Second
	DefaultFileName   = "ragscope.toml"
)

// Config is the resolved configuration.
type Config struct {
	// Backend is the requested backend; Resolved is what auto chose.
	Backend Backend `json:"backend"`

	QdrantURL    string `json:"qdrant_url,omitempty"`
	QdrantAPIKey Secret `json:"qdrant_api_key,omitempty"`
	Collection   string `json:"collection,omitempty"`
	EmbedModel   string `json:"embed_model"`
	// Embedder is auto or a provider of the table (Providers).
	Embedder string `json:"embedder"`
	// EmbedDimensions asks the embedder for vectors of this size (0: the model's).
	EmbedDimensions int `json:"embed_dimensions,omitempty"`
	// Keys and BaseURLs are the providers' API keys and base URLs, by
	// provider name (Key, BaseURL); the settings that fill them come from
	// the provider table's rows. The maps are shared between copies of a
	// Config and replaced, never written, by a setting's parser.
	Keys     map[string]Secret `json:"api_keys,omitempty"`
	BaseURLs map[string]string `json:"base_urls,omitempty"`
	// ChatProvider is auto or a provider that answers; ChatModel the chat model
	// ("": the provider's default).
	ChatProvider string `json:"chat_provider"`
	ChatModel    string `json:"chat_model,omitempty"`

	IndexFile string `json:"index_file,omitempty"`
	DocsDir   string `json:"docs_dir,omitempty"`
	// LocalSearch is how the demo and local indexes rank: bm25, hybrid or
	// embedder (LocalSearchModes); "" lets the index choose (bm25 for the
	// offline embedder, hybrid for a provider's embeddings).
	LocalSearch string `json:"local_search"`
	// Fusion is how a collection with a dense and a sparse vector is
	// searched: "" (auto: rrf when it has both), rrf, dbsf, dense or sparse.
	Fusion string `json:"fusion"`
	// RRFK is the RRF constant (0: Qdrant's default, 2); PrefetchLimit
	// each arm's limit of a hybrid search (0: 5 × the query's limit).
	RRFK          int `json:"rrf_k"`
	PrefetchLimit int `json:"prefetch_limit"`
	// DenseVector and SparseVector name the collection's vectors to
	// search ("": the first of each); SparseModel the model that made the
	// sparse vector ("": qdrant/bm25 for a vector with the idf modifier).
	DenseVector  string `json:"dense_vector"`
	SparseVector string `json:"sparse_vector"`
	SparseModel  string `json:"sparse_model"`

	TopK      int     `json:"top_k"`
	Threshold float64 `json:"threshold"`
	Dedup     bool    `json:"dedup"`

	// RerankModel turns reranking on: a Cohere rerank model, or "bm25"
	// for the offline lexical reranker.
	RerankModel      string  `json:"rerank_model,omitempty"`
	RerankCandidates int     `json:"rerank_candidates"`
	RerankThreshold  float64 `json:"rerank_threshold,omitempty"`

	// DocsBaseURL is the URL of the docs route citation URLs are built on.
	DocsBaseURL string `json:"docs_base_url,omitempty"`
	// SiteURL joins site-relative payload URLs.
	SiteURL string `json:"site_url,omitempty"`
	// SlugStyle is "github" or "simple".
	SlugStyle string `json:"slug_style"`
	// SiteDir is a local Docusaurus site for link checks.
	SiteDir string `json:"site_dir,omitempty"`

	// Timeout bounds each network call.
	Timeout time.Duration `json:"timeout"`
	// Mapping overrides payload keys per chunk field (Qdrant).
	Mapping map[string][]string `json:"mapping,omitempty"`
	// ModuleDirDepth is the folder level under docs that names a local
	// chunk's module (0: detected from the folders).
	ModuleDirDepth int `json:"module_dir_depth,omitempty"`
	// ModulePrefixes maps a path under docs to a module name for local
	// indexes ([facets.modules] in ragscope.toml).
	ModulePrefixes map[string]string `json:"module_prefixes,omitempty"`

	// DebugLog is a file that receives debug logs.
	DebugLog string `json:"debug_log,omitempty"`
	// File and EnvFile are the ragscope.toml and .env that were read.
	File    string `json:"config_file,omitempty"`
	EnvFile string `json:"env_file,omitempty"`
	// Notes explain choices (e.g. which variable was used).
	Notes []string `json:"notes,omitempty"`
	// Setup is the named setup applied ([setups.NAME] in ragscope.toml,
	// LoadOptions.Setup), "" for none; SetupNames are the setups the
	// file defines, in the file's order.
	Setup      string   `json:"setup,omitempty"`
	SetupNames []string `json:"-"`
	// file is the ragscope.toml read (nil: none), for applySetup.
	file *tomlFile
	// Providers is the provider table (LoadOptions.Providers): the names
	// Embedder and ChatProvider may take and the settings of each
	// provider's key and base URL.
	Providers ProviderTable `json:"-"`
}

// Default returns the defaults.
func Default() Config {
	return Config{
		Backend:      BackendAuto,
		EmbedModel:   DefaultEmbedModel,
		Embedder:     "auto",
		ChatProvider: ChatAuto,
		LocalSearch:  "",
		TopK:         DefaultTopK,
		Dedup:        true,
		// rerank
		RerankCandidates: retrieval.DefaultRerankCandidates,
		SlugStyle:        string(docusaurus.SlugGitHub),
		Timeout:          DefaultTimeout,
	}
}

// LoadOptions says where Load looks.
type LoadOptions struct {
	// Dir is the working directory (for .env and ragscope.toml); "" means ".".
	Dir string
	// File is an explicit config file (--config); it must exist.
	File string
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// SkipDotEnv disables reading Dir/.env.
	SkipDotEnv bool
	// Providers is the provider table (app.Table.ConfigRows): the names
	// --embedder and --chat-provider accept and the settings of each
	// provider's key and base URL. Without it no provider is known.
	Providers ProviderTable
	// Setup names a [setups.NAME] table of ragscope.toml whose keys are
	// applied over the top level and the environment ("": none).
	Setup string
}

// Load resolves defaults, ragscope.toml and the environment (.env included),
// then the named setup (LoadOptions.Setup), whose keys win over both: it
// is chosen on the command line. Flags are applied by the caller
// afterwards, then Finish and Validate.
func Load(opts LoadOptions) (Config, error) {
	cfg := Default()
	cfg.Providers = opts.Providers
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	env := opts.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	if !opts.SkipDotEnv {
		p := filepath.Join(dir, ".env")
		if d, err := readDotEnv(p); err == nil {
			cfg.EnvFile = p
			if err := d.check(env, cfg.Providers); err != nil {
				return cfg, err
			}
			env = d.lookup(env)
		} else if errors.Is(err, retrieval.ErrConfig) {
			return cfg, err
		} else if !errors.Is(err, os.ErrNotExist) {
			return cfg, fmt.Errorf("%w: read %s: %w", retrieval.ErrConfig, p, err)
		}
	}
	file := opts.File
	if file == "" {
		if v, ok := env("RAGSCOPE_CONFIG"); ok && v != "" {
			file = v
		}
	}
	explicit := file != ""
	if file == "" {
		file = filepath.Join(dir, DefaultFileName)
	}
	if err := cfg.readFile(file, explicit); err != nil {
		return cfg, err
	}
	if err := cfg.readEnv(env); err != nil {
		return cfg, err
	}
	if opts.Setup != "" {
		if err := cfg.applySetup(opts.Setup); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// EnvVar documents one environment variable.
type EnvVar struct {
	Names []string
	Help  string
}

// EnvVars lists every environment variable ragscope reads with the
// providers of t, first name preferred, for help texts and the README; it
// is derived from Settings.
func (t ProviderTable) EnvVars() []EnvVar {
	var out []EnvVar
	for _, s := range t.Settings() {
		if len(s.Env) > 0 {
			out = append(out, EnvVar{s.Env, s.Help})
		}
	}
	return append(out,
		EnvVar{[]string{"RAGSCOPE_CONFIG"}, "path of the config file (default ./ragscope.toml)"},
		EnvVar{[]string{"NO_COLOR"}, "disable colours"},
	)
}

// readEnv applies the environment variables of Settings; a value that does
// not parse is a configuration error naming the variable, never the value.
func (c *Config) readEnv(env func(string) (string, bool)) error {
	for _, s := range c.Providers.Settings() {
		for i, name := range s.Env {
			v, ok := env(name)
			if !ok || strings.TrimSpace(v) == "" {
				continue
			}
			if err := s.Set(c, strings.TrimSpace(v)); err != nil {
				return fmt.Errorf("%w: %s: %w (the value is not shown)", retrieval.ErrConfig, name, err)
			}
			if i > 0 && !s.Secret {
				c.Notes = append(c.Notes, s.Name+" from "+name)
			}
			break
		}
	}
	return nil
}

// Resolved returns the backend auto would pick: Qdrant when a Qdrant URL is
// set, else local when an index or docs folder is given, else the demo.
func (c Config) Resolved() Backend {
	if c.Backend != "" && c.Backend != BackendAuto {
		return c.Backend
	}
	switch {
	case c.QdrantURL != "":
		return BackendQdrant
	case c.IndexFile != "" || c.DocsDir != "":
		return BackendLocal
	}
	return BackendDemo
}

// Problems checks the configuration and returns every problem at once,
// each saying what to set, unsorted. The provider table adds the query
// embedder's (app.Table.Validate), which knows the providers' keys.
func (c Config) Problems() []string {
	var probs []string
	if _, err := ParseBackend(string(c.Backend)); err != nil {
		probs = append(probs, err.Error())
	}
	switch c.Resolved() {
	case BackendQdrant:
		if c.QdrantURL == "" {
			probs = append(probs, "the Qdrant backend needs QDRANT_URL (e.g. https://xyz.cloud.qdrant.io:6333)")
		}
		if c.Collection == "" {
			probs = append(probs, "no collection: set QDRANT_COLLECTION or pass --collection")
		}
		if c.EmbedModel == "" {
			probs = append(probs, "no embedding model: set RAGSCOPE_EMBED_MODEL or --model")
		}
	case BackendLocal:
		if c.IndexFile == "" && c.DocsDir == "" {
			probs = append(probs, "the local backend needs --index FILE or --docs DIR")
		}
		if c.IndexFile != "" && c.DocsDir != "" {
			probs = append(probs, "give either --index or --docs, not both")
		}
		if c.IndexFile != "" {
			if _, err := os.Stat(c.IndexFile); errors.Is(err, os.ErrNotExist) {
				probs = append(probs, fmt.Sprintf("index file %s does not exist: build one with \"ragscope index DOCS_DIR -o %s\"", c.IndexFile, c.IndexFile))
			}
		}
	}
	if c.RRFK < 0 {
		probs = append(probs, fmt.Sprintf("rrf_k must be 1 or more (0: Qdrant's default), got %d", c.RRFK))
	}
	if c.PrefetchLimit < 0 {
		probs = append(probs, fmt.Sprintf("prefetch_limit must be 1 or more (0: 5 × top_k), got %d", c.PrefetchLimit))
	}
	if c.TopK < retrieval.MinTopK || c.TopK > retrieval.MaxTopK {
		probs = append(probs, fmt.Sprintf("top_k must be between %d and %d, got %d", retrieval.MinTopK, retrieval.MaxTopK, c.TopK))
	}
	if c.Threshold < 0 || c.Threshold > 1 || c.Threshold != c.Threshold {
		probs = append(probs, fmt.Sprintf("threshold must be between 0.0 and 1.0, got %g", c.Threshold))
	}
	if _, err := c.Providers.ParseEmbedder(c.Embedder); err != nil {
		probs = append(probs, "embedder: "+err.Error())
	}
	probs = append(probs, c.rerankProblems()...)
	if c.EmbedDimensions < 0 {
		probs = append(probs, fmt.Sprintf("embed dimensions must be 0 (the model's) or more, got %d", c.EmbedDimensions))
	}
	if _, err := docusaurus.ParseSlugStyle(c.SlugStyle); err != nil {
		probs = append(probs, `slug style: use "github" (Docusaurus heading ids) or "simple"`)
	}
	if c.Timeout <= 0 {
		probs = append(probs, fmt.Sprintf("timeout must be positive, got %s", c.Timeout))
	}
	for field := range c.Mapping {
		if !knownMappingField(field) {
			probs = append(probs, fmt.Sprintf("mapping.%s is not a chunk field (use one of %s)", field, strings.Join(MappingFields(), ", ")))
		}
	}
	return probs
}

// ProblemsError is the error of a configuration's problems, sorted, or
// nil when there are none. It wraps retrieval.ErrConfig.
func ProblemsError(probs []string) error {
	if len(probs) == 0 {
		return nil
	}
	probs = slices.Clone(probs)
	sort.Strings(probs)
	return fmt.Errorf("%w: %s", retrieval.ErrConfig, strings.Join(probs, "; "))
}

// BM25Reranker is the --rerank value of the offline lexical reranker.
const BM25Reranker = "bm25"

// rerankProblems checks the rerank settings' ranges (the key a rerank
// model needs is the provider table's to check: app.Table.Validate).
func (c Config) rerankProblems() []string {
	var probs []string
	if c.RerankCandidates < 1 || c.RerankCandidates > retrieval.MaxRerankCandidates {
		probs = append(probs, fmt.Sprintf("rerank candidates must be between 1 and %d, got %d", retrieval.MaxRerankCandidates, c.RerankCandidates))
	}
	if c.RerankThreshold < 0 || c.RerankThreshold > 1 || c.RerankThreshold != c.RerankThreshold {
		probs = append(probs, fmt.Sprintf("rerank threshold must be between 0.0 and 1.0, got %g", c.RerankThreshold))
	}
	return probs
}

// MappingFields are the chunk fields a [mapping] table may override.
func MappingFields() []string {
	return []string{"chapter", "chunk_index", "content_hash", "content_type", "doc_path", "heading_id", "module", "page_slug", "section", "tags", "text", "title", "total_chunks", "url"}
}

func knownMappingField(f string) bool {
	for _, k := range MappingFields() {
		if k == f {
			return true
		}
	}
	return false
}

// URLBuilder returns the citation URL builder of the configuration.
func (c Config) URLBuilder() retrieval.URLBuilder {
	style, _ := docusaurus.ParseSlugStyle(c.SlugStyle)
	return retrieval.URLBuilder{DocsBase: c.DocsBaseURL, SiteURL: c.SiteURL, Style: style}
}

// Redacted returns a copy safe to print: secrets stay redacted by their
// type, and every URL-valued setting (Setting.URL) loses its credentials by
// the one rule of redact.URL (user information and credential query
// parameters such as key=, token=, sig=).
func (c Config) Redacted() Config {
	for _, s := range c.Providers.URLSettings() {
		if v := s.Reveal(c); v != "" && redact.URL(v) != v {
			_ = s.Set(&c, redact.URL(v)) // a URL setting's parser takes any text
		}
	}
	return c
}
