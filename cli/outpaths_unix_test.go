//go:build unix

package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin is runEvalCLI (or run with env, when env is not nil) that
// fails the test when the command does not return within d: a command
// that opens a named pipe the blocking way would hang the test run.
func runWithin(t *testing.T, d time.Duration, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		if env == nil {
			r.code, r.out, r.err = runEvalCLI(t, args...)
		} else {
			r.code, r.out, r.err = run(t, env, "", args...)
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(d):
		t.Fatalf("%v blocked for %v", args, d)
	}
	return 0, "", ""
}

// readFIFO reads the named pipe at p whole, in the background.
func readFIFO(p string) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(p) // waits for the writer
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	return got
}

// TestOutputPipeCheckNeverBlocks: a named pipe no program reads, as any
// output, is judged by its mode before the run: a run that fails after the
// check (a missing set or question file, no chat model) returns at once.
// Before, the check opened the pipe for writing and waited forever.
func TestOutputPipeCheckNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := fifo(t, dir)
	for _, args := range [][]string{
		{"eval", filepath.Join(dir, "missing.yaml"), "--junit", fifo},
		{"eval", filepath.Join(dir, "missing.yaml"), "--markdown", fifo},
		{"eval", filepath.Join(dir, "missing.yaml"), "--out", fifo},
		{"golden", "import", filepath.Join(dir, "missing.txt"), "-o", fifo, "--force"},
	} {
		code, _, errs := runWithin(t, 10*time.Second, nil, args...)
		if code != ExitUsage || !strings.Contains(errs, "does not exist") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	// No chat model: golden generate stops after the check.
	code, _, errs := runWithin(t, 10*time.Second, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, "golden", "generate", bookDocs(t), "-o", fifo)
	if code == ExitOK || strings.Contains(errs, fifo) {
		t.Errorf("golden generate -o FIFO without a chat model: exit %d: %s", code, errs)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st, err)
	}
}

// TestOutputPipeWrittenDirectly: a named pipe as eval's report, golden
// import's set or index's output is written to, for the program that
// reads it, and stays a pipe (index -o FIFO used to replace it).
func TestOutputPipeWrittenDirectly(t *testing.T) {
	dir := t.TempDir()
	fifo := fifo(t, dir)
	in := filepath.Join(dir, "q.txt")
	os.WriteFile(in, []byte("What is ROS 2?\n"), 0o600)
	docs := indexDocs(t, t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--junit", fifo}, "<testsuites"},
		{[]string{"eval", "--markdown", fifo}, "## ragscope eval"},
		{[]string{"golden", "import", in, "-o", fifo}, "question: What is ROS 2?"},
		{[]string{"index", docs, "-o", fifo}, ""},
	} {
		got := readFIFO(fifo)
		code, _, errs := runWithin(t, 30*time.Second, nil, c.args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		b := <-got
		if len(b) == 0 || !strings.Contains(string(b), c.want) {
			t.Errorf("%v: the reader got %.100q", c.args, b)
		}
		if c.args[0] == "index" {
			// What the reader got is the index: it answers queries.
			idx := filepath.Join(t.TempDir(), "book.idx")
			os.WriteFile(idx, b, 0o600)
			if code, out, errs := run(t, nil, "", "--index", idx, "query", "current loop torque"); code != ExitOK || !strings.Contains(out, "Torque") {
				t.Errorf("the index read from the pipe: exit %d\n%s\n%s", code, out, errs)
			}
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%v: the pipe was replaced: %v %v", c.args, st, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left beside the pipe: %v", ents)
	}
}

// TestReportToDevStdout: a path that leads to /dev/stdout is standard
// output, as "-" is: the report is written there (never a file put in
// place of the link), and the summary goes to standard error. The test
// writes through a link of its own to /dev/stdout: should the rule break,
// what is replaced is that link, not the system's /dev/stdout.
func TestReportToDevStdout(t *testing.T) {
	if st, err := os.Lstat("/dev/stdout"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Skip("no /dev/stdout link here")
	}
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/dev/stdout", link); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runEvalCLI(t, "eval", "--junit", link)
	if code != ExitOK || !strings.HasPrefix(stdout, "<?xml") || !strings.Contains(errs, "ragscope · demo") {
		t.Fatalf("exit %d\nstdout: %.200s\nstderr: %.200s", code, stdout, errs)
	}
	code, stdout, errs = runEvalCLI(t, "golden", "import", writeQuestions(t), "-o", link)
	if code != ExitOK || !strings.HasPrefix(stdout, "# Imported by") || !strings.Contains(stdout, "question: What is ROS 2?") || !strings.Contains(errs, "Wrote 1 unlabelled case to "+link) {
		t.Errorf("golden import -o LINK: exit %d\nstdout: %s\nstderr: %s", code, stdout, errs)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to /dev/stdout was replaced: %v %v", st, err)
	}
}

// writeQuestions is a file of one question.
func writeQuestions(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "q.txt")
	if err := os.WriteFile(p, []byte("What is ROS 2?\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// pipesInPlaceOf replaces every file under dir whose name ends in suffix
// with a named pipe of the same name, and returns how many it replaced.
func pipesInPlaceOf(t *testing.T, dir, suffix string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, suffix) {
			return err
		}
		n++
		if err := os.Remove(p); err != nil {
			return err
		}
		return syscall.Mkfifo(p, 0o600)
	})
	if err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return n
}

// TestCachePipesAreMisses: a named pipe in place of a cache file (the
// embed cache of index --embedder, golden generate's cache) is a miss,
// never a wait for a writer that never comes: the run asks the provider
// again and finishes, and the pipe stays.
func TestCachePipesAreMisses(t *testing.T) {
	env, docs, idx := cohereIndex(t, 1, 5)
	if n := pipesInPlaceOf(t, env["XDG_CACHE_HOME"], ".vec"); n != 1 {
		t.Fatalf("%d embed cache files", n)
	}
	code, out, errs := runWithin(t, 30*time.Second, env, "index", docs, "--embedder", "cohere", "-o", idx)
	if code != ExitOK || !strings.Contains(out, "5 chunks embedded, 0 from the cache") {
		t.Errorf("index with a pipe in the embed cache: exit %d\n%s\n%s", code, out, errs)
	}

	srv, genv := goldenServer(t, nil)
	set := filepath.Join(t.TempDir(), "set.yaml")
	if code, out, errs := run(t, genv, "", "golden", "generate", bookDocs(t), "-n", "2", "-o", set); code != ExitOK {
		t.Fatalf("golden generate: exit %d\n%s\n%s", code, out, errs)
	}
	calls := srv.Chats()
	if n := pipesInPlaceOf(t, genv["XDG_CACHE_HOME"], ".json"); n == 0 {
		t.Fatal("no golden cache entry")
	}
	code, out, errs = runWithin(t, 30*time.Second, genv, "golden", "generate", bookDocs(t), "-n", "2", "-o", set)
	if code != ExitOK || srv.Chats() != 2*calls || !strings.Contains(out, "0 of 1 sections from the cache") {
		t.Errorf("golden generate with pipes in its cache: exit %d, %d chats (first run %d)\n%s\n%s", code, srv.Chats(), calls, out, errs)
	}
	for _, dir := range []string{env["XDG_CACHE_HOME"], genv["XDG_CACHE_HOME"]} {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type()&os.ModeNamedPipe == 0 {
				t.Errorf("a pipe was replaced: %s", p)
			}
			return nil
		})
	}
}
