//go:build unix

package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// indexChildEnv, set in the environment, makes TestIndexStopsOnSIGTERM
// the ragscope process itself: it runs `ragscope index` on the arguments
// in the variable (separated by newlines) and exits with its code, as
// main does.
const indexChildEnv = "RAGSCOPE_TEST_INDEX_CHILD"

// TestIndexStopsOnSIGTERM runs `index` of a 1,000-page book in a child
// process (this test binary run again) and sends it SIGTERM, what
// `timeout` sends, once the build has taken its output lock: the child
// exits 130 with "interrupted", and neither the index nor its lock file
// is left. Ignoring the signal, the child would write the index and exit 0.
func TestIndexStopsOnSIGTERM(t *testing.T) {
	if args := os.Getenv(indexChildEnv); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), StopSignals()...)
		code := Main(ctx, strings.Split(args, "\n"))
		stop()
		os.Exit(code)
	}
	root := t.TempDir()
	docs := providerDocs(t, root, 1000, 10)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "book.idx")
	lock := filepath.Join(outDir, ".book.idx.lock")

	cmd := exec.Command(os.Args[0], "-test.run=^TestIndexStopsOnSIGTERM$")
	cmd.Dir = root
	cmd.Env = []string{
		indexChildEnv + "=index\n" + docs + "\n-o\n" + out,
		"HOME=" + root, "XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"PATH=" + os.Getenv("PATH"),
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The lock is taken before any page is read: once it is there, the
	// build is under way.
	var err error
wait:
	for {
		select {
		case err = <-exited:
			t.Fatalf("the child exited before the build began: %v\n%s\n%s", err, stdout.String(), stderr.String())
		case <-time.After(2 * time.Millisecond):
			if _, err := os.Stat(lock); err == nil {
				break wait
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted || !strings.Contains(stderr.String(), "ragscope: interrupted") {
		t.Fatalf("child: %v, want exit %d\nstdout %s\nstderr %s", err, ExitInterrupted, stdout.String(), stderr.String())
	}
	entries, _ := os.ReadDir(outDir)
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}
