package platform

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileAtomic: a finished write replaces the file; a failed one
// leaves the old file and no temporary file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteFile(context.Background(), p, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(context.Background(), p, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a temporary file was left behind: %v", ents)
	}
	if err := WriteFile(context.Background(), filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("a missing folder did not fail")
	}
}

// TestWriteFileThroughLink: a symbolic link is written through: its
// target is replaced atomically (the temporary file beside the target,
// none left behind) and keeps its mode, and the link stays a link; a
// dangling link creates its target; a chain of links is followed.
func TestWriteFileThroughLink(t *testing.T) {
	dir, store := t.TempDir(), t.TempDir()
	target := filepath.Join(store, "real.md")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.md")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	chain := filepath.Join(dir, "chain.md")
	if err := os.Symlink("report.md", chain); err != nil { // relative, to a link
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "new.md")
	if err := os.Symlink(filepath.Join(store, "new-target.md"), dangling); err != nil {
		t.Fatal(err)
	}
	var during []string
	for path, want := range map[string]string{link: target, chain: target, dangling: filepath.Join(store, "new-target.md")} {
		o, err := CheckOutput(path)
		if err != nil || o.Target != want || !o.Linked() || o.Stream() {
			t.Fatalf("CheckOutput(%s) = %+v, %v; want target %s", path, o, err, want)
		}
		err = WriteFile(context.Background(), path, func(w io.Writer) error {
			// While the new content is written the target still holds
			// the old one: the temporary file is beside the target.
			ents, _ := os.ReadDir(store)
			for _, e := range ents {
				during = append(during, e.Name())
			}
			_, err := io.WriteString(w, "new via "+filepath.Base(path))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", path, st, err)
		}
		if b, _ := os.ReadFile(want); string(b) != "new via "+filepath.Base(path) {
			t.Errorf("target %s holds %q", want, b)
		}
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode became %v", st.Mode().Perm())
	}
	tmpSeen := false
	for _, n := range during {
		tmpSeen = tmpSeen || strings.HasSuffix(n, ".tmp")
	}
	if !tmpSeen {
		t.Errorf("no temporary file beside the target while writing: %v", during)
	}
	for _, d := range []string{dir, store} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("left behind in %s: %s", d, e.Name())
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("the links' folder holds %v, want the three links", ents)
	}
}

// TestCheckOutput: a folder, a missing folder and a link loop are errors
// that leave nothing behind; a new file is not created by the check.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	if _, err := CheckOutput(dir); !errors.Is(err, ErrIsFolder) {
		t.Errorf("folder: %v", err)
	}
	if _, err := CheckOutput(filepath.Join(dir, "missing", "x.md")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: %v", err)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if os.Symlink(b, a) == nil && os.Symlink(a, b) == nil {
		if _, err := CheckOutput(a); err == nil || !strings.Contains(err.Error(), "a loop") {
			t.Errorf("link loop: %v", err)
		}
	}
	if _, err := CheckOutput(filepath.Join(dir, "new.md")); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "a" && e.Name() != "b" {
			t.Errorf("the check left %s", e.Name())
		}
	}
}
