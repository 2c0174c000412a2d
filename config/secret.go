package config

import (
	"strconv"

	"ragscope/internal/redact"
)

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
