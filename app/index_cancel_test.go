package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ragscope/config"
	"ragscope/retrieval/store/local"
)

// bookDocs writes a docs folder of pages pages of sections sections each
// under root and returns its path.
func bookDocs(t *testing.T, root string, pages, sections int) string {
	t.Helper()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for s := range sections {
			fmt.Fprintf(&b, "## Section %d of page %d\n\nThe actuator %d drives joint %d of the humanoid with torque loop %d and gain %d.\n\n", s, p, p, s, p*sections+s, s*p%97)
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("%04d.md", p)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// TestBuildIndexStopsAtEveryStage cancels an offline build of a
// 1,000-page book at the first progress tick of each stage: the build
// returns context.Canceled without running the stage to its end, writes
// no index and leaves no lock file.
func TestBuildIndexStopsAtEveryStage(t *testing.T) {
	root := t.TempDir()
	docs := bookDocs(t, root, 1000, 10)
	for _, stage := range []string{"reading", local.PhaseFit, local.PhaseEmbed} {
		t.Run(stage, func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "book.idx")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var mu sync.Mutex
			cancelled, finished := false, false
			_, err := BuildIndex(ctx, IndexJob{
				Docs: docs, Out: out, Settings: config.Default(),
				Progress: func(s string, done, total int) {
					mu.Lock()
					defer mu.Unlock()
					if cancelled && s != "" && done >= total {
						finished = true // the stage (or a later one) ran to its end
					}
					if !cancelled && strings.HasPrefix(s, stage) {
						cancelled = true
						cancel()
					}
				},
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if !cancelled || finished {
				t.Fatalf("cancelled %v, a stage finished after the cancel %v", cancelled, finished)
			}
			entries, _ := os.ReadDir(outDir)
			if len(entries) != 0 {
				t.Fatalf("left behind: %v", entries)
			}
		})
	}
}
