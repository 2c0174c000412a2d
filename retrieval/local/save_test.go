package local

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"ragscope/retrieval"
)

func TestSaveIndexCancelledKeepsOldFile(t *testing.T) {
	ix := fixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.idx")
	old := []byte("previous index")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SaveIndex(ctx, path, ix, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Errorf("old file replaced: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "ok.idx")); err != nil {
		t.Errorf("writable folder: %v", err)
	}
	for name, p := range map[string]string{
		"missing folder": filepath.Join(dir, "nope", "x.idx"),
		"a folder":       dir,
		"empty":          "",
	} {
		if err := CheckWritable(p); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		// Running as root: permissions do not stop writes.
		f.Close()
		os.Remove(f.Name())
	} else if err := CheckWritable(filepath.Join(ro, "x.idx")); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("read-only folder: err = %v, want ErrConfig", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("probe files left: %v", entries)
	}
}
