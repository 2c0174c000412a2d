//go:build unix

package readlimit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cases := map[string]string{"folder": dir, "named pipe (FIFO)": fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["device"] = "/dev/zero"
	}
	for kind, p := range cases {
		// A FIFO without a writer would block a plain open forever.
		_, err := ReadFile(p, 1<<10)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: err = %v, want ErrNotRegular naming %q", p, err, kind)
		}
	}
}

func TestReadFileBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the bound: %q, %v", b, err)
	}
	_, err := ReadFile(p, 4)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p+" is larger than 4 bytes") {
		t.Errorf("past the bound: %v", err)
	}
	if _, err := Read(strings.NewReader("abc"), 2); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 2 bytes") {
		t.Errorf("stream past the bound: %v", err)
	}
	if got := Size(16 << 20); got != "16 MiB" {
		t.Errorf("Size = %q", got)
	}
}

func TestReaderBound(t *testing.T) {
	b, err := io.ReadAll(Reader(strings.NewReader("abc"), 3))
	if err != nil || string(b) != "abc" {
		t.Errorf("at the bound: %q, %v", b, err)
	}
	_, err = io.ReadAll(Reader(strings.NewReader("abcd"), 3))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("past the bound: %v", err)
	}
}

// TestReadFSRefusesPipesAndBoundsSize: a site file that is a named pipe is
// refused without being opened (opening it would block), a folder is
// refused, and a file past the bound is a TooLargeError naming it.
func TestReadFSRefusesPipesAndBoundsSize(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "docusaurus.config.js"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(strings.Repeat("x", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	for _, name := range []string{"docusaurus.config.js", "sub"} {
		if _, err := ReadFS(fsys, name, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFS(%s) = %v, want ErrNotRegular", name, err)
		}
	}
	_, err := ReadFS(fsys, "big.md", 99)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Path != "big.md" {
		t.Fatalf("ReadFS(big.md, 99) = %v, want TooLargeError naming big.md", err)
	}
	b, err := ReadFS(fsys, "big.md", 100)
	if err != nil || len(b) != 100 {
		t.Fatalf("ReadFS(big.md, 100) = %d bytes, %v", len(b), err)
	}
}
