//go:build unix || windows

package local

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
)

func TestLockOutputRefusesASecondWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.idx")
	unlock, err := LockOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockOutput(path)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "another \"ragscope index\"") || !strings.Contains(err.Error(), "is writing "+path+" now") {
		t.Fatalf("second lock: err = %v", err)
	}
	if runtime.GOOS != "windows" && !strings.Contains(err.Error(), fmt.Sprintf("(pid %d", os.Getpid())) {
		t.Errorf("the message does not name the holder: %v", err)
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

// lockHolderEnv names the index path TestLockHolderProcess locks when the
// test binary runs as the lock-holding helper process.
const lockHolderEnv = "RAGSCOPE_TEST_LOCK_HOLDER"

// TestLockHolderProcess is not a test: run by TestLockOutputStaleAfterKill
// as a separate process, it takes the lock, says so and waits to be
// killed.
func TestLockHolderProcess(t *testing.T) {
	path := os.Getenv(lockHolderEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	if _, err := LockOutput(path); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestLockOutputStaleAfterKill: a run that holds the lock stops a second
// one with a message naming it; once it is killed (SIGKILL: no cleanup,
// the lock file stays behind) the next run takes the lock at once.
func TestLockOutputStaleAfterKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.idx")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper: %q", line)
	}
	_, err = LockOutput(path)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "another \"ragscope index\"") || !strings.Contains(err.Error(), "is writing "+path+" now") {
		t.Fatalf("a live lock: err = %v", err)
	}
	if runtime.GOOS != "windows" && !strings.Contains(err.Error(), fmt.Sprintf("(pid %d", cmd.Process.Pid)) {
		t.Errorf("the message does not name the holder: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	lockPath := filepath.Join(filepath.Dir(path), ".book.idx.lock")
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatalf("the killed run's lock file is gone (the test proves nothing): %v", err)
	}
	unlock, err := LockOutput(path)
	if err != nil {
		t.Fatalf("a killed run's lock blocks the next run: %v", err)
	}
	unlock()
}

// TestLockOutputRetakesARemovedFile: a lock taken on a file its holder
// removed meanwhile (an unlock between our open and our lock) is taken
// again on the file now at the path, so two runs never both hold one.
func TestLockOutputRetakesARemovedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.idx")
	unlock, err := LockOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(filepath.Dir(path), ".book.idx.lock")
	f, err := os.Open(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !stillAt(f, lockPath) {
		t.Fatal("stillAt: the open lock file is not at its path")
	}
	unlock() // removes the file f still has open
	if stillAt(f, lockPath) {
		t.Error("stillAt: a removed file is still at its path")
	}
	if _, err := os.Create(lockPath); err != nil { // another run's new lock file
		t.Fatal(err)
	}
	if stillAt(f, lockPath) {
		t.Error("stillAt: another file at the path is the removed one")
	}
}
