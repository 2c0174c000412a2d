package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"ragscope/internal/redact"
)

// Query embedders (--embedder, RAGSCOPE_EMBEDDER, [embedder] provider)
// that the configuration itself names; every other provider name comes
// from the provider table (ProviderRow).
const (
	// EmbedderAuto picks the provider from the model's name, else from the
	// keys and base URLs that are set (see app.Table.ResolveEmbedder).
	EmbedderAuto = "auto"
	// EmbedderCohere embeds with Cohere's embed API.
	EmbedderCohere = "cohere"
	// EmbedderOpenAI embeds with OpenAI's (or a compatible server's)
	// /v1/embeddings.
	EmbedderOpenAI = "openai"
	// EmbedderGemini embeds with Google's Gemini API.
	EmbedderGemini = "gemini"
	// EmbedderLocal is the offline embedder of local indexes.
	EmbedderLocal = "local"
)

// ProviderRow is the configuration's part of a row of the provider table
// (app.Provider embeds it): the provider's name and the settings that
// reach it. Each row with a KeyEnv adds the secret setting
// "<name>_api_key" (ragscope.toml "<name>.api_key"), each with a
// BaseURLEnv the URL setting "<name>_base_url" ("<name>.base_url"): the
// configuration reads, redacts and documents them from the row alone.
type ProviderRow struct {
	// Name is the value of --embedder and --chat-provider ("cohere").
	Name string
	// Title names the provider in messages ("Cohere").
	Title string
	// KeyEnv lists the API key's environment variables, preferred first;
	// nil: the provider takes no key.
	KeyEnv []string
	// BaseURLEnv lists the base URL's environment variables; nil: the
	// provider has no base URL.
	BaseURLEnv []string
	// KeyHelp and BaseURLHelp are the settings' help ("": "<Title> API
	// key (never printed)", "<Title> API base URL").
	KeyHelp, BaseURLHelp string
	// Chats: the provider answers (--chat-provider accepts it).
	Chats bool
}

// KeySetting and BaseURLSetting are the names of the row's settings
// ("cohere_api_key", "cohere_base_url").
func (r ProviderRow) KeySetting() string     { return r.Name + "_api_key" }
func (r ProviderRow) BaseURLSetting() string { return r.Name + "_base_url" }

// KeyTOML is the row's ragscope.toml key of its API key ("cohere.api_key").
func (r ProviderRow) KeyTOML() string { return r.Name + ".api_key" }

// ProviderTable is the configuration's view of the provider table, in
// its order (app.Table.ConfigRows gives it): the names --embedder and
// --chat-provider accept and the settings of each provider. The zero
// value has no providers.
type ProviderTable []ProviderRow

// settings are the key and base URL settings of every row.
func (t ProviderTable) settings() []Setting {
	var out []Setting
	for _, r := range t {
		if len(r.KeyEnv) > 0 {
			out = append(out, r.keySetting())
		}
		if len(r.BaseURLEnv) > 0 {
			out = append(out, r.baseURLSetting())
		}
	}
	return out
}

// keySetting is the row's API key: a secret, never a flag.
func (r ProviderRow) keySetting() Setting {
	name := r.Name
	return Setting{Name: r.KeySetting(), Env: r.KeyEnv, TOML: []string{r.KeyTOML()}, Secret: true,
		Help:   cmpOr(r.KeyHelp, r.Title+" API key (never printed)"),
		Reveal: func(c Config) string { return c.Keys[name].Reveal() },
		Set:    func(c *Config, s string) error { *c = c.WithKey(name, Secret(s)); return nil }}
}

// baseURLSetting is the row's base URL: a URL whose credentials are
// hidden wherever it is shown (Config.Redacted, Config.Secrets).
func (r ProviderRow) baseURLSetting() Setting {
	name := r.Name
	return Setting{Name: r.BaseURLSetting(), Env: r.BaseURLEnv, TOML: []string{r.Name + ".base_url"}, URL: true,
		Help:   cmpOr(r.BaseURLHelp, r.Title+" API base URL"),
		Reveal: func(c Config) string { return c.BaseURLs[name] },
		Set:    func(c *Config, s string) error { *c = c.WithBaseURL(name, s); return nil }}
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Key is the API key of the named provider ("" when unset).
func (c Config) Key(provider string) Secret { return c.Keys[provider] }

// BaseURL is the base URL of the named provider ("" when unset).
func (c Config) BaseURL(provider string) string { return c.BaseURLs[provider] }

// Secrets are the credential values the configuration holds: the value
// of every Secret setting, and the credentials written in every URL
// setting (redact.Values). They are derived from the settings' Secret and
// URL flags, so a provider's key is hidden from the row that declares it.
// Values shorter than redact.MinSecretLen are left out: hidden wherever
// they appear they would hide ordinary words.
func (c Config) Secrets() []string {
	var vals []string
	for _, s := range c.Providers.Settings() {
		switch {
		case s.Secret:
			vals = append(vals, s.Reveal(c))
		case s.URL:
			vals = append(vals, redact.Values(s.Reveal(c))...)
		}
	}
	// Keys and base URLs held without their row (a Config built by hand)
	// are hidden too: a key is a Secret by its type.
	for _, k := range c.Keys {
		vals = append(vals, k.Reveal())
	}
	for _, u := range c.BaseURLs {
		vals = append(vals, redact.Values(u)...)
	}
	var out []string
	for _, v := range vals {
		if len(v) >= redact.MinSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// names are the rows' names that does says.
func (t ProviderTable) names(does func(ProviderRow) bool) []string {
	var out []string
	for _, r := range t {
		if does(r) {
			out = append(out, r.Name)
		}
	}
	return out
}

// ParseEmbedder accepts auto and the table's providers (any case); "" is
// auto.
func (t ProviderTable) ParseEmbedder(s string) (string, error) {
	return parseProvider(s, "embedder", t.names(func(ProviderRow) bool { return true }))
}

// ParseChatProvider accepts auto and the table's providers that answer
// (any case); "" is auto.
func (t ProviderTable) ParseChatProvider(s string) (string, error) {
	return parseProvider(s, "chat provider", t.names(func(r ProviderRow) bool { return r.Chats }))
}

// parseProvider accepts auto ("" too) or one of names, in any case; the
// error names what (an "embedder") and the choices.
func parseProvider(s, what string, names []string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	if p == "" || p == EmbedderAuto {
		return EmbedderAuto, nil
	}
	if slices.Contains(names, p) {
		return p, nil
	}
	if len(names) == 0 {
		return "", fmt.Errorf("unknown %s: use auto (no provider is known)", what)
	}
	choices := append([]string{EmbedderAuto}, names...)
	return "", fmt.Errorf("unknown %s: use %s or %s", what, strings.Join(choices[:len(choices)-1], ", "), choices[len(choices)-1])
}

// WithKey is c with the named provider's API key set to key ("" unsets
// it); c's own map is left as it is.
func (c Config) WithKey(provider string, key Secret) Config {
	c.Keys = maps.Clone(c.Keys)
	if c.Keys == nil {
		c.Keys = map[string]Secret{}
	}
	c.Keys[provider] = key
	return c
}

// WithBaseURL is c with the named provider's base URL set to url.
func (c Config) WithBaseURL(provider, url string) Config {
	c.BaseURLs = maps.Clone(c.BaseURLs)
	if c.BaseURLs == nil {
		c.BaseURLs = map[string]string{}
	}
	c.BaseURLs[provider] = url
	return c
}
