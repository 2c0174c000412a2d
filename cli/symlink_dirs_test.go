package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexFollowsFolderSymlinks: a symbolic link to a folder is walked
// like the folder under the confine rules of file links: one inside
// DOCS_DIR is followed; one leading outside is skipped with a warning
// unless --follow-symlinks is given, which follows it; a link back to a
// folder it is in (a loop) is skipped with a warning, never walked
// forever.
func TestIndexFollowsFolderSymlinks(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	guide := filepath.Join(docs, "guide")
	ext := filepath.Join(root, "elsewhere")
	for _, d := range []string{guide, ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(guide, "gears.md"), []byte("# Gears\n\nGearboxes trade speed for torque in every joint.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ext, "wiring.md"), []byte("# Wiring\n\nShielded cables keep encoder signals clean.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(docs, "alias"):  guide,
		filepath.Join(docs, "shared"): ext,
		filepath.Join(guide, "back"):  docs,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	idx := filepath.Join(root, "book.idx")
	code, out, errs := run(t, nil, "", "index", docs, "-o", idx)
	if code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	// 01-torque, guide/gears and alias/gears.
	if !strings.Contains(out, "Indexed 3 pages") {
		t.Errorf("the link inside the docs folder was not followed:\nstdout %s\nstderr %s", out, errs)
	}
	if !strings.Contains(errs, "docs/shared: a folder that resolves outside the docs folder through a symbolic link (pass --follow-symlinks to index it); skipped") {
		t.Errorf("the link leading outside was not reported:\n%s", errs)
	}
	if !strings.Contains(errs, "docs/guide/back: symbolic link to a folder it is in (a loop); skipped") {
		t.Errorf("the loop was not reported:\n%s", errs)
	}

	code, out, errs = run(t, nil, "", "index", docs, "-o", idx, "--follow-symlinks")
	if code != ExitOK || !strings.Contains(out, "Indexed 4 pages") || strings.Contains(errs, "docs/shared") {
		t.Errorf("--follow-symlinks: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = run(t, nil, "", "--index", idx, "query", "--json", "shielded cables encoder signals")
	if code != ExitOK || !strings.Contains(out, "docs/shared/wiring.md") {
		t.Errorf("the followed folder's page is not in the index: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestIndexOutputLinkWritesThrough: -o LINK replaces the file the link
// leads to (atomically, beside it) and keeps the link, says so, and a link
// whose target does not exist yet creates the target.
func TestIndexOutputLinkWritesThrough(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	store := t.TempDir()
	target := filepath.Join(store, "real.idx")
	if err := os.WriteFile(target, []byte("the previous index"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "book.idx")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	dangling := filepath.Join(root, "new.idx")
	if err := os.Symlink(filepath.Join(store, "new-target.idx"), dangling); err != nil {
		t.Fatal(err)
	}
	for l, tgt := range map[string]string{link: target, dangling: filepath.Join(store, "new-target.idx")} {
		code, out, errs := run(t, nil, "", "index", docs, "-o", l)
		if code != ExitOK {
			t.Fatalf("index -o %s: exit %d: %s", l, code, errs)
		}
		if !strings.Contains(errs, "is a symbolic link: the index is written to the file it leads to, "+tgt+" (the link is kept)") {
			t.Errorf("-o %s: no note of the write through:\n%s", l, errs)
		}
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("-o %s: the link was replaced: %v %v", l, st, err)
		}
		if code, _, errs := run(t, nil, "", "--index", tgt, "query", "current loop torque"); code != ExitOK {
			t.Errorf("the target %s is not the new index: exit %d: %s\n%s", tgt, code, errs, out)
		}
	}
	if entries, _ := os.ReadDir(store); len(entries) != 2 {
		t.Errorf("left beside the targets: %v", entries)
	}
}
