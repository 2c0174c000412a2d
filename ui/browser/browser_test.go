package browser

import (
	"errors"
	"reflect"
	"testing"

	"ragscope/internal/platform"
	"ragscope/termsafe"
)

// The browser is opened with each system's own opener, and a link that
// termsafe.URL or the scheme rule refuses never reaches it.
func TestOpenURLPerSystem(t *testing.T) {
	const u = "https://book.example/docs/a b#x"
	for goos, want := range map[string][]string{
		"linux":   {"xdg-open", u},
		"darwin":  {"open", u},
		"windows": {"rundll32", "url.dll,FileProtocolHandler", "https://book.example/docs/a%20b#x"},
	} {
		var ran []platform.Command
		open := openOn(goos, func(c platform.Command) error { ran = append(ran, c); return nil })
		if err := open(u); err != nil {
			t.Fatalf("%s: %v", goos, err)
		}
		if len(ran) != 1 || !reflect.DeepEqual(append([]string{ran[0].Name}, ran[0].Args...), want) {
			t.Errorf("%s: ran %+v, want %q", goos, ran, want)
		}
		ran = nil
		if err := open("https://x.org/a\u202eb"); !errors.Is(err, termsafe.ErrUnsafeURL) {
			t.Errorf("%s: a bidi override: %v", goos, err)
		}
		if err := open("file:///etc/passwd"); err == nil {
			t.Errorf("%s: a file: link was opened", goos)
		}
		if len(ran) != 0 {
			t.Errorf("%s: a refused link reached the opener: %+v", goos, ran)
		}
	}
}

// Open itself refuses a URL with a control character.
func TestOpenRefusesControls(t *testing.T) {
	if err := Open("https://x.org/a\nb"); !errors.Is(err, termsafe.ErrUnsafeURL) {
		t.Fatalf("Open with a newline: %v", err)
	}
}
