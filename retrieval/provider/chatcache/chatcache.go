// Package chatcache is the on-disk cache of chat-model tasks (judging,
// question generation): small JSON values keyed by a hash of what decides
// them (model, prompt version, question, content hash), so a re-run with
// unchanged inputs makes no call. Writes are atomic (a temporary file
// renamed into place by platform.ReplaceFile, which waits out a reader
// that holds the entry open on Windows) and reads are bounded; a damaged or oversized entry
// is a miss, never an error.
package chatcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"ragscope/internal/platform"
	"ragscope/internal/readlimit"
)

// MaxEntry bounds one entry as it is read and written: 64 KiB.
const MaxEntry = 64 << 10

// Dir is the default cache folder of a kind of entry:
// os.UserCacheDir()/ragscope/kind ($XDG_CACHE_HOME/ragscope/kind on Linux).
func Dir(kind string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("user cache folder: %w", err)
	}
	return filepath.Join(base, "ragscope", kind), nil
}

// Cache is a folder of entries. Its methods are safe for concurrent use
// (by goroutines and by processes: a reader sees a whole entry or none).
type Cache struct {
	dir string
}

// Open returns the cache in dir; the folder is made on the first Put.
func Open(dir string) *Cache { return &Cache{dir: dir} }

// Dir is the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// Key hashes parts into a key. Each part is length-prefixed, so
// ("ab","c") and ("a","bc") differ.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Hash is the hex SHA-256 of text (a chunk's content hash).
func Hash(text string) string {
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

// path is key's file: two-level fan-out so no folder grows too large.
func (c *Cache) path(key string) (string, error) {
	if len(key) < 8 || strings.ContainsAny(key, `/\.`) {
		return "", fmt.Errorf("chatcache: bad key %q", key)
	}
	return filepath.Join(c.dir, key[:2], key+".json"), nil
}

// Get returns key's entry. ok is false when there is none, or it cannot
// be read, or it is larger than MaxEntry, or it is not a regular file (a
// named pipe there is never opened in a way that waits).
func (c *Cache) Get(key string) (value []byte, ok bool) {
	if c == nil {
		return nil, false
	}
	p, err := c.path(key)
	if err != nil {
		return nil, false
	}
	b, err := readlimit.ReadFile(p, MaxEntry)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Put stores value under key, atomically. An entry that is not a regular
// file (a named pipe, a device, a folder) is left as it is: the value is
// not stored, and the error says why.
func (c *Cache) Put(key string, value []byte) error {
	if c == nil {
		return nil
	}
	if len(value) > MaxEntry {
		return fmt.Errorf("chatcache: entry of %d bytes is over the %d-byte bound", len(value), MaxEntry)
	}
	p, err := c.path(key)
	if err != nil {
		return err
	}
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("chatcache: %w", &readlimit.NotRegularError{Path: p, Mode: st.Mode()})
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("chatcache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("chatcache: %w", err)
	}
	_, werr := tmp.Write(value)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("chatcache: write %s: %w", p, err)
	}
	if err := platform.ReplaceFile(tmp.Name(), p); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("chatcache: %w", err)
	}
	return nil
}

// Len is the number of entries (for tests and the summary line).
func (c *Cache) Len() int {
	n := 0
	_ = filepath.WalkDir(c.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			n++
		}
		return nil
	})
	return n
}
