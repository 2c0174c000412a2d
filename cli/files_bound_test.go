//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ragscope/internal/readlimit"
)

// fifo makes a named pipe with no writer: opening it the ordinary way
// blocks until one comes, which is never.
func fifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t *testing.T, p string, size int64) string {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("truncate: %v", err)
	}
	return p
}

// TestIndexFlagRefusesWhatIsNotAnIndex: --index given a folder, a named
// pipe, a file that is not an index or one past the bound is a
// configuration error (exit 2) that says what the path is, at once: no
// blocking on the pipe, no reading the huge file, never "checksum
// mismatch" for a file that is no index at all.
func TestIndexFlagRefusesWhatIsNotAnIndex(t *testing.T) {
	dir := t.TempDir()
	notIndex := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notIndex, []byte(strings.Repeat("these are my notes, not an index\n", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"folder", dir, "is not a ragscope index (it is a folder)"},
		{"named pipe", fifo(t, dir), "is not a ragscope index (it is a named pipe (FIFO))"},
		{"not an index", notIndex, "notes.txt is not a ragscope index (it does not start with the ragscope index header)"},
		{"past the bound", sparse(t, filepath.Join(dir, "huge.idx"), readlimit.IndexFile+1), "huge.idx is larger than 4 GiB, the most ragscope reads of an index file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, nil, "", "--index", tc.path, "query", "torque")
			if code != ExitConfig || !strings.Contains(errs, tc.want) || strings.Contains(errs, "checksum") {
				t.Errorf("exit %d, want %d with %q:\nstdout %s\nstderr %s", code, ExitConfig, tc.want, out, errs)
			}
		})
	}
}

// TestEvalRefusesWhatIsNotAGoldenSet: eval given a named pipe, a folder or
// a file past the bound is the malformed-file usage error (exit 64,
// "file: problem") at once.
func TestEvalRefusesWhatIsNotAGoldenSet(t *testing.T) {
	dir := t.TempDir()
	pipe := fifo(t, dir)
	huge := sparse(t, filepath.Join(dir, "huge.yaml"), readlimit.GoldenSet+1)
	cases := []struct{ name, path, want string }{
		{"named pipe", pipe, pipe + ": it is a named pipe (FIFO), not a golden set file"},
		{"folder", dir, dir + ": it is a folder, not a golden set file"},
		{"past the bound", huge, huge + ": larger than 16 MiB, the most ragscope reads of a golden set"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, nil, "", "eval", tc.path)
			if code != ExitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want %d with %q:\nstdout %s\nstderr %s", code, ExitUsage, tc.want, out, errs)
			}
		})
	}
}

// TestDotEnvBadValueNamesFileAndLine: a .env value its setting rejects is
// a configuration error naming the file, the line and the variable, as the
// README promises, never the value.
func TestDotEnvBadValueNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("# local\n\nRAGSCOPE_TOP_K=lots\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, map[string]string{"__DIR": dir}, "", "query", "torque")
	want := filepath.Join(dir, ".env") + " line 3: RAGSCOPE_TOP_K: "
	if code != ExitConfig || !strings.Contains(errs, want) || strings.Contains(errs, "lots") {
		t.Errorf("exit %d, want %d with %q and no value:\n%s", code, ExitConfig, want, errs)
	}
}

// TestSelectedTextFromStdinBounded: standard input past its bound is a
// usage error that says so, not a selection silently cut at the bound.
func TestSelectedTextFromStdinBounded(t *testing.T) {
	code, out, errs := run(t, nil, strings.Repeat("a", int(readlimit.Stdin)+1), "query", "--selected-text", "-", "what is this?")
	if code != ExitUsage || !strings.Contains(errs, "the selected text on standard input is more than 8 MiB, the most ragscope reads") {
		t.Errorf("exit %d, want %d:\nstdout %.200s\nstderr %s", code, ExitUsage, out, errs)
	}
}

// TestIndexSkipsPagesThatAreNoFiles: a named pipe called like a page would
// block the build forever, and a page past the bound would be read whole:
// each is skipped with a warning that says why.
func TestIndexSkipsPagesThatAreNoFiles(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	if err := syscall.Mkfifo(filepath.Join(docs, "02-pipe.md"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sparse(t, filepath.Join(docs, "03-huge.md"), readlimit.Markdown+1)
	code, out, errs := run(t, nil, "", "index", docs, "-o", filepath.Join(root, "book.idx"))
	if code != ExitOK || !strings.Contains(out, "Indexed 1 pages") || !strings.Contains(out, "(2 files skipped)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	for _, want := range []string{"02-pipe.md is a named pipe (FIFO), not a file; skipped", "03-huge.md is larger than 64 MiB, the most ragscope reads of it; skipped"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestEvalBaselineNamedPipe: --baseline given a named pipe is a usage
// error at once, not a read that waits for a writer forever.
func TestEvalBaselineNamedPipe(t *testing.T) {
	pipe := fifo(t, t.TempDir())
	code, _, errs := run(t, nil, "", "eval", "--baseline", pipe)
	if code != ExitUsage || !strings.Contains(errs, "--baseline: "+pipe+" is a named pipe (FIFO), not a file") {
		t.Errorf("exit %d, want %d:\n%s", code, ExitUsage, errs)
	}
}
