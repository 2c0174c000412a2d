// Package history keeps the questions a user asked across sessions in a
// bounded file: one JSON string per line, oldest first, so multi-line
// questions survive and a torn last line is simply skipped.
package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"ragscope/internal/jsonsafe"
	"ragscope/internal/platform"
	"ragscope/internal/readlimit"
)

// DefaultMax is the number of questions kept when a caller gives no bound.
const DefaultMax = 500

// maxLineBytes bounds one stored question; longer lines are skipped.
const maxLineBytes = 64 << 10

// Load returns the last max questions of the file at path, oldest first.
// A missing file is an empty history, not an error. When the file holds
// more than twice max entries it is rewritten to the last max, so appends
// stay cheap and the file stays bounded.
func Load(path string, max int) ([]string, error) {
	if max <= 0 {
		max = DefaultMax
	}
	data, err := readlimit.ReadFile(path, readlimit.History)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	lines := 0
	for sc.Scan() {
		lines++
		var q string
		if json.Unmarshal(sc.Bytes(), &q) != nil || strings.TrimSpace(q) == "" {
			continue
		}
		out = append(out, q)
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	if lines > 2*max {
		if err := rewrite(path, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Append adds q to the end of the file at path, creating the file and its
// folder when needed (mode 0600: questions may be private).
func Append(path, q string) error {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create history folder: %w", err)
	}
	line, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode history entry: %w", err)
	}
	line = jsonsafe.Escape(line)
	if len(line) > maxLineBytes {
		return nil
	}
	// A named pipe or a device in its place is an error, never a wait.
	f, err := platform.OpenRegular(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open history: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("write history: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close history: %w", err)
	}
	return nil
}

// rewrite replaces the file with entries atomically (platform.WriteFile:
// temp file + rename, tried again while Windows reports the file held
// open; a link's target is replaced and the link kept).
func rewrite(path string, entries []string) error {
	var b bytes.Buffer
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode history entry: %w", err)
		}
		b.Write(jsonsafe.Escape(line))
		b.WriteByte('\n')
	}
	// The file was just read as a regular file: nothing here waits.
	if err := platform.WriteFile(context.Background(), path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	return nil
}
