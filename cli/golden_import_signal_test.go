//go:build unix

package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGoldenImportStopsOnSIGTERM: SIGTERM (what `timeout` sends) during
// the import of a million-line file stops it as Ctrl+C does: exit 130,
// "interrupted", and no set written. Ignoring the signal, the import
// would finish, write the set and exit 0.
func TestGoldenImportStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "questions.txt")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range 1_000_000 {
		fmt.Fprintf(w, "How do I calibrate joint %d of the arm?\n", i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "golden.yaml")

	ctx, stop := signal.NotifyContext(context.Background(), StopSignals()...)
	defer stop()
	go func() {
		time.Sleep(300 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	var stdout, stderr strings.Builder
	a := &App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir,
		LookupEnv: func(string) (string, bool) { return "", false }}
	code := a.Run(ctx, []string{"golden", "import", in, "-o", out})
	if code != ExitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitInterrupted, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("the set was written: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}
