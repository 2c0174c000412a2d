package ui

import (
	"os"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// The profile Run starts with is the one detected from standard output and
// the environment (taken from Lip Gloss's detection, not a second one).
func TestStartProfileIsTheDetectedOne(t *testing.T) {
	if got, want := startProfile(), colorprofile.Detect(os.Stdout, os.Environ()); got != want {
		t.Fatalf("start profile %v, detected %v", got, want)
	}
}
