package local

// Finding and reading the pages of a docs folder: the walk (which names
// it skips, which symbolic links it follows) and the bounded read of one
// page.

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"ragscope/internal/readlimit"
)

// pageFile is a markdown page the walk of the docs folder found: its
// path in the file system and its doc path ("docs/<path under dir>").
type pageFile struct{ path, docPath string }

// findPages walks the docs folder dir of fsys in path order and returns
// its markdown pages, skipping the names that start with "_" or ".".
// Symbolic links to folders are walked as folders when the file system
// says where they lead (on disk, BuildDir): those that lead outside the
// docs folder only with --follow-symlinks, as files. A link to a folder
// it is in, or to one the links it was reached through lead to, is a
// loop: skipped with a warning. followed holds the real paths of the docs
// folder and of the links walked through.
func findPages(ctx context.Context, fsys fs.FS, dir string, warn func(Warning)) ([]pageFile, error) {
	var files []pageFile
	docPathOf := func(p string) string { return "docs/" + strings.TrimPrefix(strings.TrimPrefix(p, dir), "/") }
	lr, _ := fsys.(linkResolver)
	var walk func(root string, followed []string) error
	walk = func(root string, followed []string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			name := d.Name()
			if p != root && (strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if p != root && d.Type()&fs.ModeSymlink != 0 && !isMarkdownName(name) && lr != nil {
				real, info, refused, err := lr.resolveLink(p)
				if err != nil || !info.IsDir() {
					return nil // dangling, or a link to a file that is no page
				}
				if refused != nil {
					warn(Warning{File: docPathOf(p), Message: "a folder that " + errOutsideDocs.Error() + "; skipped"})
					return nil
				}
				parent, err := lr.realPath(path.Dir(p))
				if err != nil {
					return nil
				}
				for _, f := range append(followed, parent) {
					if within(f, real) {
						warn(Warning{File: docPathOf(p), Message: "symbolic link to a folder it is in (a loop); skipped"})
						return nil
					}
				}
				return walk(p, append(slices.Clip(followed), real))
			}
			if d.IsDir() || !isMarkdownName(name) {
				return nil
			}
			files = append(files, pageFile{p, docPathOf(p)})
			return nil
		})
	}
	var followed []string
	if lr != nil {
		if real, err := lr.realPath(dir); err == nil {
			followed = append(followed, real)
		}
	}
	if err := walk(dir, followed); err != nil {
		return nil, err
	}
	return files, nil
}

// readPage reads a markdown page of the docs folder: a regular file of at
// most readlimit.Markdown bytes. A named pipe (which would block the
// build), a device or a larger file is an error, which skips the page
// with a warning.
func readPage(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &readlimit.NotRegularError{Path: name, Mode: st.Mode()}
	}
	if st.Size() > readlimit.Markdown {
		return nil, &readlimit.TooLargeError{Path: name, Limit: readlimit.Markdown}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readlimit.Read(f, readlimit.Markdown)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func isMarkdownName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".mdx"
}
