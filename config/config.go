// Package config resolves ragscope's configuration once, before any backend
// or UI starts: defaults, then ragscope.toml, then the environment (with a
// .env file in the working directory filling variables the environment does
// not set), then command-line flags; Validate checks the result and says
// what to fix. API keys are Secret values that never print.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"ragscope/internal/readlimit"
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

// Secret is a credential. It prints as "[redacted]" in every format, JSON
// included; Reveal returns the value for the client that needs it.
type Secret string

// String redacts the secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redact.Mark
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
	// Embedder is auto, cohere, openai, gemini or local.
	Embedder string `json:"embedder"`
	// EmbedDimensions asks the embedder for vectors of this size (0: the model's).
	EmbedDimensions int    `json:"embed_dimensions,omitempty"`
	OpenAIAPIKey    Secret `json:"openai_api_key,omitempty"`
	OpenAIBaseURL   string `json:"openai_base_url,omitempty"`
	GeminiAPIKey    Secret `json:"gemini_api_key,omitempty"`
	GeminiBaseURL   string `json:"gemini_base_url,omitempty"`
	// ChatProvider is auto, cohere or openai; ChatModel the chat model
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
	// Providers are the provider names Embedder and ChatProvider may take
	// (LoadOptions.Providers; the zero value: the built-in providers).
	Providers ProviderNames `json:"-"`
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
	// Providers are the provider names --embedder and --chat-provider
	// accept, from the provider table (app.Table.Names); the zero value
	// means the built-in providers.
	Providers ProviderNames
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
			if err := d.check(env); err != nil {
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

// readFile reads path and applies its top-level keys; the named setups
// it defines are kept for applySetup.
func (c *Config) readFile(path string, mustExist bool) error {
	f, err := parseFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil
		}
		return err
	}
	c.File = path
	top := f.doc
	if raw, ok := top[setupsKey]; ok {
		tbl, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %s line %d: %s must be tables, e.g. [setups.small]", retrieval.ErrConfig, path, f.line(setupsKey), setupsKey)
		}
		top = maps.Clone(top)
		delete(top, setupsKey)
		f.setups = tbl
		// Every setup's keys are checked now, chosen or not: a typo
		// surfaces on the first run, not on the day the setup is used.
		for name, v := range tbl {
			if strings.TrimSpace(name) == "" {
				return fmt.Errorf("%w: %s line %d: [setups.%q] has no name: name the setup, e.g. [setups.small], and choose it with --setup small", retrieval.ErrConfig, path, f.line(joinKey(setupsKey, name)), name)
			}
			if sub, ok := v.(map[string]any); ok {
				if _, err := f.checkKeys(joinKey(setupsKey, name), sub); err != nil {
					return err
				}
			}
		}
	}
	c.file = f
	c.SetupNames = f.setupNames()
	return c.applyTable(f, "", top)
}

// tomlFile is a parsed ragscope.toml: its document, the line of each key
// (for errors) and the [setups.NAME] tables.
type tomlFile struct {
	path   string
	doc    map[string]any
	lines  map[string]int
	setups map[string]any
}

// parseFile reads and decodes a ragscope.toml; a syntax error names the
// file and line and never quotes a value.
func parseFile(path string) (*tomlFile, error) {
	var doc map[string]any
	data, err := readlimit.ReadFile(path, readlimit.ConfigFile)
	if err == nil {
		_, err = toml.Decode(string(data), &doc)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		var perr toml.ParseError
		if errors.As(err, &perr) {
			where := ""
			if perr.LastKey != "" {
				where = fmt.Sprintf(" (key %s)", perr.LastKey)
			}
			return nil, fmt.Errorf("%w: %s line %d%s: %s", retrieval.ErrConfig, path, perr.Position.Line, where, withoutQuoted(perr.Message))
		}
		return nil, fmt.Errorf("%w: read %s: %w", retrieval.ErrConfig, path, err)
	}
	return &tomlFile{path: path, doc: doc, lines: keyLines(string(data))}, nil
}

// applyTable applies the settings of one table of f: the top level
// (prefix "") or a setup's ("setups.NAME"). Unknown keys are an error
// naming the file and each key's line.
func (c *Config) applyTable(f *tomlFile, prefix string, doc map[string]any) error {
	path := f.path
	full := func(k string) string { return joinKey(prefix, k) }
	vals, err := f.checkKeys(prefix, doc)
	if err != nil {
		return err
	}
	for _, s := range Settings() {
		// The preferred key wins: apply the others first.
		for i := len(s.TOML) - 1; i >= 0; i-- {
			v, ok := vals[s.TOML[i]]
			if !ok {
				continue
			}
			text, err := tomlValue(v)
			if err == nil && strings.TrimSpace(text) == "" {
				continue
			}
			if err == nil {
				err = s.Set(c, strings.TrimSpace(text))
			}
			if err != nil {
				return fmt.Errorf("%w: %s line %d: %s: %w (the value is not shown)", retrieval.ErrConfig, path, f.line(full(s.TOML[i])), full(s.TOML[i]), err)
			}
		}
	}
	if err := c.readModulePrefixes(path, doc); err != nil {
		return err
	}
	if m, ok := doc["mapping"]; ok {
		tbl, ok := m.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: %s: mapping must be a table", retrieval.ErrConfig, path)
		}
		c.Mapping = map[string][]string{}
		for field, v := range tbl {
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

// checkKeys flattens one table of f (the top level, prefix "", or a
// setup's) and checks its keys: unknown ones are an error naming the file
// and each key's line.
func (f *tomlFile) checkKeys(prefix string, doc map[string]any) (map[string]any, error) {
	vals := map[string]any{}
	flattenTOML("", doc, vals)
	known := map[string]bool{}
	for _, s := range Settings() {
		for _, k := range s.TOML {
			known[k] = true
		}
	}
	var unknown []string
	for k := range vals {
		if !known[k] && k != "mapping" && !strings.HasPrefix(k, "mapping.") && k != "facets" && k != modulesKey && !strings.HasPrefix(k, modulesKey+".") {
			unknown = append(unknown, joinKey(prefix, k))
		}
	}
	if len(unknown) == 0 {
		return vals, nil
	}
	sort.Slice(unknown, func(i, j int) bool {
		li, lj := f.line(unknown[i]), f.line(unknown[j])
		if li != lj {
			return li < lj
		}
		return unknown[i] < unknown[j]
	})
	msgs := make([]string, len(unknown))
	for i, k := range unknown {
		msgs[i] = fmt.Sprintf("line %d: unknown setting %s", f.line(k), k)
	}
	return nil, fmt.Errorf("%w: %s %s (see README, Configuration)", retrieval.ErrConfig, f.path, strings.Join(msgs, "; "))
}

// joinKey is key under prefix ("" for the top level).
func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// modulesKey is the ragscope.toml table of path prefix -> module name.
const modulesKey = "facets.modules"

// readModulePrefixes reads [facets.modules]: "path/under/docs" = "module".
func (c *Config) readModulePrefixes(path string, doc map[string]any) error {
	facets, ok := doc["facets"].(map[string]any)
	if !ok {
		return nil
	}
	m, ok := facets["modules"]
	if !ok {
		return nil
	}
	tbl, ok := m.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s: %s must be a table of \"path/under/docs\" = \"module\"", retrieval.ErrConfig, path, modulesKey)
	}
	c.ModulePrefixes = map[string]string{}
	for prefix, v := range tbl {
		name, ok := v.(string)
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(prefix) == "" {
			return fmt.Errorf("%w: %s: %s: %q must map a folder under docs to a module name (a string), e.g. \"modules/module-1\" = \"ros2\"", retrieval.ErrConfig, path, modulesKey, prefix)
		}
		c.ModulePrefixes[prefix] = strings.TrimSpace(name)
	}
	return nil
}

// flattenTOML records every key of a decoded document under its dotted
// name ("retrieval.top_k"); tables are recorded too, under their own name.
func flattenTOML(prefix string, tbl map[string]any, out map[string]any) {
	for k, v := range tbl {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			if name == "mapping" {
				out[name] = v
				continue
			}
			flattenTOML(name, sub, out)
			continue
		}
		out[name] = v
	}
}

// withoutQuoted replaces quoted text in a parser's message ('…' or "…"),
// which may be part of a value, with "…": errors about configuration
// sources never echo a value.
func withoutQuoted(msg string) string {
	var b strings.Builder
	var quote rune
	for _, r := range msg {
		switch {
		case quote != 0 && r == quote:
			quote = 0
			b.WriteString("…")
			b.WriteRune(r)
		case quote != 0:
		case r == '\'' || r == '"':
			quote = r
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if quote != 0 {
		b.WriteString("…")
	}
	return b.String()
}

// EnvVar documents one environment variable.
type EnvVar struct {
	Names []string
	Help  string
}

// EnvVars lists every environment variable ragscope reads, first name
// preferred, for help texts and the README; it is derived from Settings.
func EnvVars() []EnvVar {
	var out []EnvVar
	for _, s := range Settings() {
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
	for _, s := range Settings() {
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
	for _, s := range URLSettings() {
		if p := s.URL(&c); *p != "" {
			*p = redact.URL(*p)
		}
	}
	return c
}
