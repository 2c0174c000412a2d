package embedx

import (
	"errors"
	"net/url"
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
	if got := SafeURL("https://u:secret@proxy.example/v1"); got != "https://u:xxxxx@proxy.example/v1" {
		t.Errorf("SafeURL = %q", got)
	}
	if got := SafeURL("http://[::1"); got != "(invalid URL)" {
		t.Errorf("SafeURL of a bad URL = %q", got)
	}
}
