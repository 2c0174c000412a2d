package ui

import (
	"strings"
	"testing"
)

// The explorer's header names the setup chosen with --setup.
func TestHeaderNamesSetup(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Backend = BackendInfo{Kind: "local", Setup: "small", Collection: "book.idx", Points: -1}
	m := sized(t, opts, 120, 30)
	if first := strings.SplitN(screen(m), "\n", 2)[0]; !strings.HasPrefix(first, "ragscope local · setup small · collection book.idx") {
		t.Errorf("header %q", first)
	}
}
