//go:build unix

package platform

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe in dir, or skips the test where the system
// has none.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// within runs f and fails the test when it does not return within d: a
// call that blocks on a named pipe would otherwise hang the test run.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s blocked for %v", what, d)
	}
}

// TestCheckOutputNeverOpensAPipe: the check before a run judges a named
// pipe (directly or through a link) by its mode: it returns at once with
// no reader, and no reader that is waiting sees an end of file.
func TestCheckOutputNeverOpensAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "f")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		var o Output
		var err error
		within(t, 5*time.Second, "CheckOutput("+p+")", func() { o, err = CheckOutput(p) })
		if err != nil || !o.Stream() || o.Target != p {
			t.Errorf("CheckOutput(%s) = %+v, %v", p, o, err)
		}
	}
	if err := os.Chmod(fifo, 0o400); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root writes whatever the mode says
		if _, err := CheckOutput(fifo); !errors.Is(err, os.ErrPermission) {
			t.Errorf("read-only pipe: %v", err)
		}
	}
}

// TestWriteFilePipeDirectly: a named pipe (directly or through a link) is
// written to, not replaced: a reader gets the whole content, and the pipe
// and the link are still there.
func TestWriteFilePipeDirectly(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "f")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20) // more than a pipe holds: the writer waits on the reader
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	for _, p := range []string{fifo, link} {
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo) // waits for the writer
			if err != nil {
				got <- nil
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- b
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := WriteFile(ctx, p, func(w io.Writer) error { _, err := w.Write(big); return err })
		cancel()
		if err != nil {
			t.Fatalf("WriteFile(%s): %v", p, err)
		}
		if b := <-got; len(b) != len(big) || string(b[:26]) != "abcdefghijklmnopqrstuvwxyz" {
			t.Errorf("%s: the reader got %d bytes", p, len(b))
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st, err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestWriteFilePipeWithoutReader: with no reader the write waits without
// blocking, and gives up when ctx ends, saying why; the pipe stays.
func TestWriteFilePipeWithoutReader(t *testing.T) {
	fifo := mkfifo(t, t.TempDir(), "f")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "WriteFile to a pipe no one reads", func() {
		err = WriteFile(ctx, fifo, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no program reads the named pipe") {
		t.Errorf("err = %v", err)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v", st.Mode())
	}
	var f *os.File
	within(t, 5*time.Second, "OpenAppend of a pipe no one reads", func() {
		c, stop := context.WithCancel(context.Background())
		stop()
		f, err = OpenAppend(c, fifo, 0o600)
	})
	if f != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("OpenAppend: %v", err)
	}
}

// TestWriteFileDescriptor: /dev/fd/N and /proc/self/fd/N (what `>(cat)`
// gives) write to that descriptor; /dev/stdout is standard output.
func TestWriteFileDescriptor(t *testing.T) {
	if o, err := ResolveOutput("/dev/stdout"); err != nil || !o.Stdout() || !IsStdout("/dev/fd/1") {
		t.Fatalf("/dev/stdout: %+v %v", o, err)
	}
	if IsStdout("/dev/stderr") || IsStdout(filepath.Join(t.TempDir(), "stdout")) {
		t.Error("not standard output")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var paths []string
	for _, d := range []string{"/dev/fd", "/proc/self/fd"} {
		if _, err := os.Stat(d); err == nil {
			paths = append(paths, d+"/"+strconv.Itoa(int(w.Fd())))
		}
	}
	if len(paths) == 0 {
		t.Skip("no /dev/fd here")
	}
	for _, p := range paths {
		if _, err := CheckOutput(p); err != nil {
			t.Fatalf("CheckOutput(%s): %v", p, err)
		}
		if err := WriteFile(context.Background(), p, func(w io.Writer) error { _, err := io.WriteString(w, p+";"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	b, _ := io.ReadAll(r)
	want := ""
	for _, p := range paths {
		want += p + ";"
	}
	if string(b) != want {
		t.Errorf("read %q, want %q", b, want)
	}
}

// TestOpenRegularRefusesPipes: a file ragscope keeps for itself is never
// a pipe: refused at once, not waited on.
func TestOpenRegularRefusesPipes(t *testing.T) {
	fifo := mkfifo(t, t.TempDir(), "f")
	var err error
	within(t, 5*time.Second, "OpenRegular of a pipe", func() {
		_, err = OpenRegular(fifo, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	})
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("err = %v", err)
	}
}

// TestWriteFileDeviceThroughLink: a link to a device is written through
// to the device; neither the link nor the device is replaced.
func TestWriteFileDeviceThroughLink(t *testing.T) {
	st, err := os.Stat("/dev/null")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null")
	}
	link := filepath.Join(t.TempDir(), "out.md")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if o, err := CheckOutput(link); err != nil || !o.Stream() || o.Linked() {
		t.Fatalf("CheckOutput: %+v %v", o, err)
	}
	if err := WriteFile(context.Background(), link, func(w io.Writer) error { _, err := io.WriteString(w, "gone"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/null was replaced: %v %v", st, err)
	}
}
