package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

// TestEvalInterruptedWritesNothing: Ctrl+C while eval's first embed call
// is in flight (the fake Cohere server holds it) stops `eval --out` and
// `eval --vs --markdown` with exit 130 and "interrupted": no case was
// finished, no report is printed and no report file is written. The
// cancel comes when the server has received the call, not after a delay.
func TestEvalInterruptedWritesNothing(t *testing.T) {
	_, co, env := fakes(t)
	var b strings.Builder
	b.WriteString("name: many\ncases:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  - {id: c%d, question: \"How does joint %d of the humanoid move?\", expected_modules: [module-1-ros2]}\n", i, i)
	}
	dir := t.TempDir()
	set := filepath.Join(dir, "many.yaml")
	toml := fmt.Sprintf("[setups.a]\nbackend = \"qdrant\"\nqdrant.collection = %q\n\n[setups.b]\nbackend = \"qdrant\"\nqdrant.collection = %q\n", qdranttest.CollectionA, qdranttest.CollectionB)
	if err := os.WriteFile(set, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"eval", []string{"eval", set, "--out", filepath.Join(dir, "report.json")}},
		{"eval --vs", []string{"eval", set, "--setup", "a", "--vs", "b", "--markdown", filepath.Join(dir, "compare.md")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			co.SetLatency(time.Hour)
			defer co.SetLatency(0)
			before := co.Requests()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for co.Requests() == before && ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			var out, errb strings.Builder
			app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir,
				LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			code := app.Run(ctx, tc.args)
			if code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") || strings.Contains(out.String(), "hit@k") {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Fatalf("left behind: %v", entries)
			}
		})
	}
}
