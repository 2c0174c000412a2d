package embedx

import (
	"errors"
	"net/url"
	"strings"
)

// Redact replaces every occurrence of key in s with "[redacted]" (s as is
// when key is empty): what every provider does to text that may echo its
// key before it reaches a message.
func Redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// ShortCause is err's text for a message: the transport error without the
// *url.Error's method and URL prefix, with key redacted.
func ShortCause(err error, key string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return Redact(err.Error(), key)
}

// SafeURL is raw with any password removed, for messages; "(invalid URL)"
// when it does not parse.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Redacted()
}
