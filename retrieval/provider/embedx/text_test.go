package embedx

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestRedactShortCauseSafeURL(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://api.example/v2/embed", Err: errors.New("dial: key sk-123 refused")}
	if got := ShortCause(err, "sk-123"); got != "dial: key [redacted] refused" {
		t.Errorf("ShortCause = %q", got)
	}
	if got := Redact("nothing to hide", ""); got != "nothing to hide" {
		t.Errorf("Redact with no key = %q", got)
	}
	if got := SafeURL("https://u:secret@proxy.example/v1"); got != "https://[redacted]@proxy.example/v1" {
		t.Errorf("SafeURL = %q", got)
	}
	if got := SafeURL("http://[::1"); got != "(invalid URL)" {
		t.Errorf("SafeURL of a bad URL = %q", got)
	}
}

// TestRedactURLsInErrorText: the SDKs wrap net/http's *url.Error, whose
// text quotes the request URL with its query; every provider's message
// goes through Redact, ShortCause, Excerpt or SafeURL, which hide it.
func TestRedactURLsInErrorText(t *testing.T) {
	const secret = "PLANTEDq7"
	err := &url.Error{Op: "Post", URL: "http://u:" + secret + "@host/v1beta/models/m:embedContent?key=" + secret, Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
	wrapped := fmt.Errorf("embed: %w", err)
	for name, got := range map[string]string{
		"Redact":     Redact(wrapped.Error(), ""),
		"Redact key": Redact(wrapped.Error(), "sk-other"),
		"ShortCause": ShortCause(&url.Error{Op: "Get", URL: "http://h/", Err: errors.New(`proxy "http://h/?token=` + secret + `" refused`)}, ""),
		"Excerpt":    Excerpt([]byte(`{"error":"bad request to https://h/v1?api_key=`+secret+`&x=1","query":"key=`+secret+`"}`), ""),
		"SafeURL":    SafeURL("https://user:" + secret + "@h/v1?x=1&x-goog-api-key=" + secret + "#sig=" + secret),
	} {
		if strings.Contains(got, secret) {
			t.Errorf("%s keeps the secret: %s", name, got)
		}
		if !strings.Contains(got, "[redacted]") {
			t.Errorf("%s does not say what it hid: %s", name, got)
		}
	}
	if got := Redact(wrapped.Error(), ""); !strings.Contains(got, "host/v1beta/models/m:embedContent?key=[redacted]") || !strings.Contains(got, "connection refused") {
		t.Errorf("Redact lost the message around the URL: %s", got)
	}
}

// TestErrorMessageHidesURLCredentials: a provider's message built from raw
// SDK text still prints without the URL's credentials.
func TestErrorMessageHidesURLCredentials(t *testing.T) {
	e := &Error{Msg: `Cannot reach Gemini: Post "http://u:PLANTEDp@h/v1beta/models/m:embed?key=PLANTEDk": refused`}
	if got := e.Error(); strings.Contains(got, "PLANTED") || !strings.Contains(got, "m:embed?key=[redacted]") {
		t.Errorf("Error() = %s", got)
	}
}
