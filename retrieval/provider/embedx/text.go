package embedx

import (
	"errors"
	"net/url"

	"ragscope/internal/redact"
)

// Redact replaces every occurrence of key in s with "[redacted]" and hides
// the credentials of every URL in s (redact.Text: user information and
// credential query parameters, as net/http quotes them in `Post "URL":
// …`): what every provider does to text that may echo its key or its
// base URL before it reaches a message.
func Redact(s, key string) string { return redact.Secrets(s, key) }

// ShortCause is err's text for a message: the transport error without the
// *url.Error's method and URL prefix, with key and URL credentials redacted.
func ShortCause(err error, key string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return Redact(err.Error(), key)
}

// SafeURL is raw redacted for messages by the one rule every URL ragscope
// shows follows (redact.URL: user information and credential query
// parameters hidden); "(invalid URL)" when it does not parse.
func SafeURL(raw string) string {
	if _, err := url.Parse(raw); err != nil {
		return "(invalid URL)"
	}
	return redact.URL(raw)
}
