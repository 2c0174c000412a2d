package local

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// errOutsideDocs is the reason a file reached through a symbolic link that
// leads outside the docs folder is not read.
var errOutsideDocs = errors.New("resolves outside the docs folder through a symbolic link (pass --follow-symlinks to index it)")

// confinedFS is a folder on disk whose files under docsDir are read only
// when their real path, symbolic links resolved, is inside docsDir: a link
// to /etc/passwd or to another project is reported and skipped instead of
// being indexed and published in citations. Files outside docsDir (the
// Docusaurus config next to it) are read as they are.
//
// With follow set (--follow-symlinks) every link is followed; either way
// the chunker learns where a link to a folder leads (resolveLink), so that
// it walks the folders links lead to, once each, and says which it skips.
type confinedFS struct {
	fs.FS
	root    string // the folder fsys is rooted at, absolute
	docsDir string // the docs folder's name within root (slash-separated)
	realDoc string // the docs folder's real path
	follow  bool   // follow links that lead outside the docs folder too
}

func newConfinedFS(root, docsDir string, follow bool) (*confinedFS, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(docsDir)))
	if err != nil {
		return nil, err
	}
	return &confinedFS{FS: os.DirFS(root), root: root, docsDir: docsDir, realDoc: real, follow: follow}, nil
}

// linkResolver is a file system that says where its symbolic links lead
// (confinedFS): ChunkDocs follows the links to folders it may follow.
type linkResolver interface {
	// resolveLink returns the real path of name, what it is, and whether
	// it is refused (errOutsideDocs); an error for a dangling link.
	resolveLink(name string) (real string, info fs.FileInfo, refused error, err error)
	// realPath is the real path of name, links resolved.
	realPath(name string) (string, error)
}

func (c *confinedFS) realPath(name string) (string, error) {
	return filepath.EvalSymlinks(filepath.Join(c.root, filepath.FromSlash(name)))
}

func (c *confinedFS) resolveLink(name string) (string, fs.FileInfo, error, error) {
	real, err := c.realPath(name)
	if err != nil {
		return "", nil, nil, err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", nil, nil, err
	}
	return real, st, c.check(name), nil
}

// within tells whether the real path p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Open opens name, refusing files under the docs folder whose real path is
// outside it.
func (c *confinedFS) Open(name string) (fs.File, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return c.FS.Open(name)
}

// ReadDir lists a folder (listing never follows links).
func (c *confinedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return fs.ReadDir(c.FS, name)
}

// Stat describes name, with the same confinement as Open.
func (c *confinedFS) Stat(name string) (fs.FileInfo, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return fs.Stat(c.FS, name)
}

func (c *confinedFS) check(name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if c.follow || (name != c.docsDir && !strings.HasPrefix(name, c.docsDir+"/")) {
		return nil
	}
	real, err := c.realPath(name)
	if err != nil {
		// Let the open itself report a missing or unreadable file.
		return nil
	}
	if !within(real, c.realDoc) {
		return &fs.PathError{Op: "open", Path: path.Clean(name), Err: errOutsideDocs}
	}
	return nil
}

var (
	_ fs.ReadDirFS = (*confinedFS)(nil)
	_ fs.StatFS    = (*confinedFS)(nil)
)

// skippedFiles counts the files the chunker skipped: those with a warning
// and no chunk.
func skippedFiles(pages map[string]bool, warns []Warning) int {
	seen := map[string]bool{}
	for _, w := range warns {
		if w.File != "" && !pages[w.File] && !seen[w.File] {
			seen[w.File] = true
		}
	}
	return len(seen)
}
