package history

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestAppendLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ragscope", "history")
	got, err := Load(path, 10)
	if err != nil || len(got) != 0 {
		t.Fatalf("Load(missing) = %v, %v; want empty, nil", got, err)
	}
	for _, q := range []string{"What is ROS 2?", "  ", "multi\nline question"} {
		if err := Append(path, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err = Load(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"What is ROS 2?", "multi\nline question"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Load = %q, want %q", got, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Windows has no Unix modes (the file sits in the user's own profile).
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Fatalf("history mode = %v, want 0600", st.Mode().Perm())
	}
}

func TestLoadBoundsAndTrims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	for i := 0; i < 25; i++ {
		if err := Append(path, "q"+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A torn line (crash mid-write) is skipped.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString("\"torn")
	_ = f.Close()
	got, err := Load(path, 5)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "q20,q21,q22,q23,q24" {
		t.Fatalf("Load = %q", got)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 5 {
		t.Fatalf("file not trimmed to 5 lines: %d", n)
	}
}
