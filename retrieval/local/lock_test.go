//go:build unix || windows

package local

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestLockOutputRefusesASecondWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.idx")
	unlock, err := LockOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockOutput(path)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "another \"ragscope index\" is writing") {
		t.Fatalf("second lock: err = %v", err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ".book.idx.lock")); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	unlock2, err := LockOutput(path)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}
