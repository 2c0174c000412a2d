package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileHoldsNoRawControls: a question pasted with a C1 control or a bidi
// override is written escaped (the file is a state file a user may cat),
// and reads back as typed.
func TestFileHoldsNoRawControls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	q := "why\u009b31m \u202eevil\u202c?"
	if err := Append(path, q); err != nil {
		t.Fatal(err)
	}
	if err := rewrite(path, []string{q, "second"}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u009b", "\u202e", "\u202c"} {
		if strings.Contains(string(raw), bad) {
			t.Fatalf("history file holds raw %U: %q", []rune(bad)[0], raw)
		}
	}
	got, err := Load(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != q {
		t.Fatalf("Load = %q, want %q first", got, q)
	}
}
