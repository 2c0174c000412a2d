package platform

import (
	"path/filepath"
	"testing"
)

// ExpandHome resolves a leading "~/" to the home folder and leaves every
// other path as it is.
func TestExpandHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for in, want := range map[string]string{
		"~/sets/golden.yaml": filepath.Join(home, "sets", "golden.yaml"),
		"golden.yaml":        "golden.yaml",
		"/abs/golden.yaml":   "/abs/golden.yaml",
		"~user/golden.yaml":  "~user/golden.yaml",
		"":                   "",
	} {
		if got := ExpandHome(in); got != want {
			t.Errorf("ExpandHome(%q) = %q, want %q", in, got, want)
		}
	}
}
