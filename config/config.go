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
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/joho/godotenv"

	"ragscope/retrieval"
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
	return "", fmt.Errorf("unknown backend %q: use auto, demo, local or qdrant", s)
}

// Secret is a credential. It prints as "[redacted]" in every format, JSON
// included; Reveal returns the value for the client that needs it.
type Secret string

// String redacts the secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString redacts the secret under %#v.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// MarshalJSON redacts the secret.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// MarshalText redacts the secret (TOML, YAML and friends).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// IsSet reports whether the secret has a value.
func (s Secret) IsSet() bool { return s != "" }

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

	QdrantURL     string `json:"qdrant_url,omitempty"`
	QdrantAPIKey  Secret `json:"qdrant_api_key,omitempty"`
	Collection    string `json:"collection,omitempty"`
	CohereAPIKey  Secret `json:"cohere_api_key,omitempty"`
	CohereBaseURL string `json:"cohere_base_url,omitempty"`
	EmbedModel    string `json:"embed_model"`

	// --- providers (issue 9): query embedder selection and provider keys ---
	// Embedder is auto, cohere, openai, gemini or local (ParseEmbedder).
	Embedder string `json:"embedder"`
	// EmbedDimensions asks the model for vectors of this size (0 = the
	// model's own size).
	EmbedDimensions int    `json:"embed_dimensions,omitempty"`
	OpenAIAPIKey    Secret `json:"openai_api_key,omitempty"`
	OpenAIBaseURL   string `json:"openai_base_url,omitempty"`
	GeminiAPIKey    Secret `json:"gemini_api_key,omitempty"`
	GeminiBaseURL   string `json:"gemini_base_url,omitempty"`
	// --- end providers ---

	IndexFile string `json:"index_file,omitempty"`
	DocsDir   string `json:"docs_dir,omitempty"`

	TopK      int     `json:"top_k"`
	Threshold float64 `json:"threshold"`
	Dedup     bool    `json:"dedup"`

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

	// DebugLog is a file that receives debug logs.
	DebugLog string `json:"debug_log,omitempty"`
	// File and EnvFile are the ragscope.toml and .env that were read.
	File    string `json:"config_file,omitempty"`
	EnvFile string `json:"env_file,omitempty"`
	// Notes explain choices (e.g. which variable was used).
	Notes []string `json:"notes,omitempty"`
}

// Default returns the defaults.
func Default() Config {
	return Config{
		Backend:    BackendAuto,
		EmbedModel: DefaultEmbedModel,
		TopK:       DefaultTopK,
		Dedup:      true,
		SlugStyle:  string(retrieval.SlugGitHub),
		Timeout:    DefaultTimeout,
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
}

// Load resolves defaults, ragscope.toml and the environment (.env included).
// Flags are applied by the caller afterwards, then Finish and Validate.
func Load(opts LoadOptions) (Config, error) {
	cfg := Default()
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
		if vals, err := godotenv.Read(p); err == nil {
			cfg.EnvFile = p
			real := env
			env = func(k string) (string, bool) {
				if v, ok := real(k); ok {
					return v, true
				}
				v, ok := vals[k]
				return v, ok
			}
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
	return cfg, nil
}

// fileConfig is the shape of ragscope.toml.
type fileConfig struct {
	Backend string `toml:"backend"`
	Qdrant  struct {
		URL        string `toml:"url"`
		APIKey     string `toml:"api_key"`
		Collection string `toml:"collection"`
	} `toml:"qdrant"`
	Cohere struct {
		APIKey  string `toml:"api_key"`
		BaseURL string `toml:"base_url"`
		Model   string `toml:"model"`
	} `toml:"cohere"`
	// --- providers (issue 9) ---
	EmbedderTable struct {
		Provider   string `toml:"provider"`
		Model      string `toml:"model"`
		Dimensions *int   `toml:"dimensions"`
	} `toml:"embedder"`
	OpenAI struct {
		APIKey  string `toml:"api_key"`
		BaseURL string `toml:"base_url"`
	} `toml:"openai"`
	Gemini struct {
		APIKey  string `toml:"api_key"`
		BaseURL string `toml:"base_url"`
	} `toml:"gemini"`
	// --- end providers ---
	Local struct {
		Index string `toml:"index"`
		Docs  string `toml:"docs"`
	} `toml:"local"`
	Retrieval struct {
		TopK      *int     `toml:"top_k"`
		Threshold *float64 `toml:"threshold"`
		Dedup     *bool    `toml:"dedup"`
		Timeout   string   `toml:"timeout"`
	} `toml:"retrieval"`
	Site struct {
		BaseURL   string `toml:"base_url"`
		SiteURL   string `toml:"site_url"`
		SlugStyle string `toml:"slug_style"`
		Dir       string `toml:"dir"`
	} `toml:"site"`
	Mapping map[string]any `toml:"mapping"`
}

func (c *Config) readFile(path string, mustExist bool) error {
	var fc fileConfig
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil
		}
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return fmt.Errorf("%w: %s line %d: %s", retrieval.ErrConfig, path, perr.Position.Line, perr.Message)
		}
		return fmt.Errorf("%w: read %s: %w", retrieval.ErrConfig, path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, 0, len(und))
		for _, k := range und {
			if len(k) > 0 && k[0] == "mapping" {
				continue
			}
			keys = append(keys, k.String())
		}
		if len(keys) > 0 {
			return fmt.Errorf("%w: %s: unknown setting %s (see README, Configuration)", retrieval.ErrConfig, path, strings.Join(keys, ", "))
		}
	}
	c.File = path
	if fc.Backend != "" {
		b, err := ParseBackend(fc.Backend)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", retrieval.ErrConfig, path, err)
		}
		c.Backend = b
	}
	setStr(&c.QdrantURL, fc.Qdrant.URL)
	setStr(&c.Collection, fc.Qdrant.Collection)
	if fc.Qdrant.APIKey != "" {
		c.QdrantAPIKey = Secret(fc.Qdrant.APIKey)
	}
	if fc.Cohere.APIKey != "" {
		c.CohereAPIKey = Secret(fc.Cohere.APIKey)
	}
	setStr(&c.CohereBaseURL, fc.Cohere.BaseURL)
	setStr(&c.EmbedModel, fc.Cohere.Model)
	// --- providers (issue 9) ---
	if fc.EmbedderTable.Provider != "" {
		e, err := ParseEmbedder(fc.EmbedderTable.Provider)
		if err != nil {
			return fmt.Errorf("%w: %s: [embedder] provider: %w", retrieval.ErrConfig, path, err)
		}
		c.Embedder = e
	}
	setStr(&c.EmbedModel, fc.EmbedderTable.Model)
	if fc.EmbedderTable.Dimensions != nil {
		c.EmbedDimensions = *fc.EmbedderTable.Dimensions
	}
	if fc.OpenAI.APIKey != "" {
		c.OpenAIAPIKey = Secret(fc.OpenAI.APIKey)
	}
	setStr(&c.OpenAIBaseURL, fc.OpenAI.BaseURL)
	if fc.Gemini.APIKey != "" {
		c.GeminiAPIKey = Secret(fc.Gemini.APIKey)
	}
	setStr(&c.GeminiBaseURL, fc.Gemini.BaseURL)
	// --- end providers ---
	setStr(&c.IndexFile, fc.Local.Index)
	setStr(&c.DocsDir, fc.Local.Docs)
	if fc.Retrieval.TopK != nil {
		c.TopK = *fc.Retrieval.TopK
	}
	if fc.Retrieval.Threshold != nil {
		c.Threshold = *fc.Retrieval.Threshold
	}
	if fc.Retrieval.Dedup != nil {
		c.Dedup = *fc.Retrieval.Dedup
	}
	if fc.Retrieval.Timeout != "" {
		d, err := time.ParseDuration(fc.Retrieval.Timeout)
		if err != nil {
			return fmt.Errorf("%w: %s: retrieval.timeout %q is not a duration like \"30s\"", retrieval.ErrConfig, path, fc.Retrieval.Timeout)
		}
		c.Timeout = d
	}
	setStr(&c.DocsBaseURL, fc.Site.BaseURL)
	setStr(&c.SiteURL, fc.Site.SiteURL)
	setStr(&c.SlugStyle, fc.Site.SlugStyle)
	setStr(&c.SiteDir, fc.Site.Dir)
	if len(fc.Mapping) > 0 {
		c.Mapping = map[string][]string{}
		for field, v := range fc.Mapping {
			switch t := v.(type) {
			case string:
				c.Mapping[field] = []string{t}
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok {
						return fmt.Errorf("%w: %s: mapping.%s must list payload keys as strings", retrieval.ErrConfig, path, field)
					}
					c.Mapping[field] = append(c.Mapping[field], s)
				}
			default:
				return fmt.Errorf("%w: %s: mapping.%s must be a string or a list of strings", retrieval.ErrConfig, path, field)
			}
		}
	}
	return nil
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// EnvVar documents one environment variable.
type EnvVar struct {
	Names []string
	Help  string
}

// EnvVars lists every environment variable ragscope reads, first name
// preferred, for help texts and the README.
func EnvVars() []EnvVar {
	return []EnvVar{
		{[]string{"QDRANT_URL"}, "Qdrant URL (https://host:6333, host:6334, …); selects the Qdrant backend"},
		{[]string{"QDRANT_API_KEY"}, "Qdrant API key (sent as gRPC metadata; never printed)"},
		{[]string{"QDRANT_COLLECTION", "COLLECTION_NAME"}, "Qdrant collection name"},
		{[]string{"COHERE_API_KEY", "CO_API_KEY"}, "Cohere API key (never printed)"},
		{[]string{"COHERE_BASE_URL"}, "Cohere API base URL, for proxies (default https://api.cohere.com)"},
		{[]string{"RAGSCOPE_EMBED_MODEL", "EMBEDDING_MODEL"}, "Cohere embedding model (default embed-english-v3.0)"},
		{[]string{"RAGSCOPE_BACKEND"}, "auto, demo, local or qdrant (default auto)"},
		// --- providers (issue 9) ---
		{[]string{"RAGSCOPE_EMBEDDER"}, "query embedder: auto, cohere, openai, gemini or local (default auto)"},
		{[]string{"RAGSCOPE_EMBED_DIMENSIONS"}, "vector size to ask the model for (default: the model's own)"},
		{[]string{"OPENAI_API_KEY"}, "OpenAI (or OpenAI-compatible server) API key (never printed)"},
		{[]string{"OPENAI_BASE_URL"}, "OpenAI-compatible API base URL (default https://api.openai.com/v1)"},
		{[]string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, "Gemini API key (never printed)"},
		{[]string{"GEMINI_BASE_URL"}, "Gemini API base URL, for proxies"},
		// --- end providers ---
		{[]string{"RAGSCOPE_INDEX"}, "a saved local index file (from `ragscope index`)"},
		{[]string{"RAGSCOPE_DOCS"}, "a Docusaurus docs folder to index on the fly"},
		{[]string{"RAGSCOPE_TOP_K"}, "default number of hits (1..100, default 5)"},
		{[]string{"RAGSCOPE_THRESHOLD"}, "default minimum score (0..1, default 0)"},
		{[]string{"RAGSCOPE_BASE_URL"}, "URL of the docs route that citation URLs are built on"},
		{[]string{"RAGSCOPE_SITE_URL"}, "site origin joined to site-relative payload URLs"},
		{[]string{"RAGSCOPE_SLUG_STYLE"}, "heading anchor rule: github (Docusaurus, default) or simple"},
		{[]string{"RAGSCOPE_SITE_DIR"}, "local Docusaurus site folder for link checks"},
		{[]string{"RAGSCOPE_TIMEOUT"}, "timeout of each network call (default 30s)"},
		{[]string{"RAGSCOPE_CONFIG"}, "path of the config file (default ./ragscope.toml)"},
		{[]string{"NO_COLOR"}, "disable colours"},
	}
}

func (c *Config) readEnv(env func(string) (string, bool)) error {
	get := func(names ...string) (string, string) {
		for _, n := range names {
			if v, ok := env(n); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v), n
			}
		}
		return "", ""
	}
	if v, _ := get("RAGSCOPE_BACKEND"); v != "" {
		b, err := ParseBackend(v)
		if err != nil {
			return fmt.Errorf("%w: RAGSCOPE_BACKEND: %w", retrieval.ErrConfig, err)
		}
		c.Backend = b
	}
	setStr(&c.QdrantURL, first(get("QDRANT_URL")))
	if v, _ := get("QDRANT_API_KEY"); v != "" {
		c.QdrantAPIKey = Secret(v)
	}
	if v, name := get("QDRANT_COLLECTION", "COLLECTION_NAME"); v != "" {
		c.Collection = v
		if name != "QDRANT_COLLECTION" {
			c.Notes = append(c.Notes, "collection from "+name)
		}
	}
	if v, _ := get("COHERE_API_KEY", "CO_API_KEY"); v != "" {
		c.CohereAPIKey = Secret(v)
	}
	setStr(&c.CohereBaseURL, first(get("COHERE_BASE_URL")))
	setStr(&c.EmbedModel, first(get("RAGSCOPE_EMBED_MODEL", "EMBEDDING_MODEL")))
	// --- providers (issue 9) ---
	if v, name := get("RAGSCOPE_EMBEDDER"); v != "" {
		e, err := ParseEmbedder(v)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", retrieval.ErrConfig, name, err)
		}
		c.Embedder = e
	}
	if v, name := get("RAGSCOPE_EMBED_DIMENSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: %s=%q is not a whole number >= 0", retrieval.ErrConfig, name, v)
		}
		c.EmbedDimensions = n
	}
	if v, _ := get("OPENAI_API_KEY"); v != "" {
		c.OpenAIAPIKey = Secret(v)
	}
	setStr(&c.OpenAIBaseURL, first(get("OPENAI_BASE_URL")))
	if v, _ := get("GEMINI_API_KEY", "GOOGLE_API_KEY"); v != "" {
		c.GeminiAPIKey = Secret(v)
	}
	setStr(&c.GeminiBaseURL, first(get("GEMINI_BASE_URL")))
	// --- end providers ---
	setStr(&c.IndexFile, first(get("RAGSCOPE_INDEX")))
	setStr(&c.DocsDir, first(get("RAGSCOPE_DOCS")))
	if v, name := get("RAGSCOPE_TOP_K"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a whole number", retrieval.ErrConfig, name, v)
		}
		c.TopK = n
	}
	if v, name := get("RAGSCOPE_THRESHOLD"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a number", retrieval.ErrConfig, name, v)
		}
		c.Threshold = f
	}
	setStr(&c.DocsBaseURL, first(get("RAGSCOPE_BASE_URL")))
	setStr(&c.SiteURL, first(get("RAGSCOPE_SITE_URL")))
	setStr(&c.SlugStyle, first(get("RAGSCOPE_SLUG_STYLE")))
	setStr(&c.SiteDir, first(get("RAGSCOPE_SITE_DIR")))
	if v, name := get("RAGSCOPE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a duration like \"30s\"", retrieval.ErrConfig, name, v)
		}
		c.Timeout = d
	}
	return nil
}

func first(v, _ string) string { return v }

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

// Validate checks the configuration and returns every problem at once, each
// saying what to set. The error wraps retrieval.ErrConfig.
func (c Config) Validate() error {
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
		// --- providers (issue 9): the chosen embedder's key is required ---
		switch c.ResolvedEmbedder() {
		case EmbedderCohere:
			if !c.CohereAPIKey.IsSet() {
				probs = append(probs, "no embedder API key: set COHERE_API_KEY (or CO_API_KEY), or OPENAI_API_KEY or GEMINI_API_KEY, to embed questions")
			}
		case EmbedderOpenAI:
			if !c.OpenAIAPIKey.IsSet() {
				probs = append(probs, "--embedder openai needs OPENAI_API_KEY (or [openai] api_key in ragscope.toml)")
			}
		case EmbedderGemini:
			if !c.GeminiAPIKey.IsSet() {
				probs = append(probs, "--embedder gemini needs GEMINI_API_KEY (or GOOGLE_API_KEY, or [gemini] api_key in ragscope.toml)")
			}
		case EmbedderLocal:
			probs = append(probs, "--embedder local embeds with the offline model of a local index and cannot search a Qdrant collection: use cohere, openai or gemini")
		}
		if c.EmbedDimensions < 0 {
			probs = append(probs, fmt.Sprintf("--dimensions must be 0 (the model's size) or positive, got %d", c.EmbedDimensions))
		}
		// --- end providers ---
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
	}
	if c.TopK < retrieval.MinTopK || c.TopK > retrieval.MaxTopK {
		probs = append(probs, fmt.Sprintf("top_k must be between %d and %d, got %d", retrieval.MinTopK, retrieval.MaxTopK, c.TopK))
	}
	if c.Threshold < 0 || c.Threshold > 1 || c.Threshold != c.Threshold {
		probs = append(probs, fmt.Sprintf("threshold must be between 0.0 and 1.0, got %g", c.Threshold))
	}
	if _, err := retrieval.ParseSlugStyle(c.SlugStyle); err != nil {
		probs = append(probs, err.Error())
	}
	if c.Timeout <= 0 {
		probs = append(probs, fmt.Sprintf("timeout must be positive, got %s", c.Timeout))
	}
	for field := range c.Mapping {
		if !knownMappingField(field) {
			probs = append(probs, fmt.Sprintf("mapping.%s is not a chunk field (use one of %s)", field, strings.Join(MappingFields(), ", ")))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	sort.Strings(probs)
	return fmt.Errorf("%w: %s", retrieval.ErrConfig, strings.Join(probs, "; "))
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
	style, _ := retrieval.ParseSlugStyle(c.SlugStyle)
	return retrieval.URLBuilder{DocsBase: c.DocsBaseURL, SiteURL: c.SiteURL, Style: style}
}

// Redacted returns a copy safe to print: secrets stay redacted by their type,
// and URLs lose any user:password part.
func (c Config) Redacted() Config {
	c.QdrantURL = stripUserinfo(c.QdrantURL)
	c.CohereBaseURL = stripUserinfo(c.CohereBaseURL)
	c.OpenAIBaseURL = stripUserinfo(c.OpenAIBaseURL) // providers (issue 9)
	c.GeminiBaseURL = stripUserinfo(c.GeminiBaseURL) // providers (issue 9)
	return c
}

func stripUserinfo(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest := raw[i+3:]
	at := strings.IndexByte(rest, '@')
	slash := strings.IndexByte(rest, '/')
	if at >= 0 && (slash < 0 || at < slash) {
		return raw[:i+3] + "[redacted]@" + rest[at+1:]
	}
	return raw
}
