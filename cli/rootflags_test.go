package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ragscope -k 10 (and --threshold) set the explorer's starting values;
// query keeps its own --top-k/-k.
func TestExplorerTopKFlag(t *testing.T) {
	start := func(args ...string) (*App, int, string) {
		var out, errb bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
			LookupEnv: func(string) (string, bool) { return "", false }}
		code := app.Run(context.Background(), args)
		return app, code, errb.String()
	}
	app, code, errs := start("-k", "10", "--threshold", "0.2")
	if code != ExitOK || app.Cfg.TopK != 10 || app.Cfg.Threshold != 0.2 {
		t.Fatalf("exit %d, top_k %d, threshold %g: %s", code, app.Cfg.TopK, app.Cfg.Threshold, errs)
	}
	if _, code, errs := start("-k", "0"); code != ExitUsage || !strings.Contains(errs, "--top-k") {
		t.Fatalf("-k 0: exit %d %s", code, errs)
	}
	code, out, errs := run(t, nil, "", "query", "-k", "3", "--json", "what is ROS 2?")
	if code != ExitOK || strings.Count(out, `"rank"`) != 3 {
		t.Fatalf("query -k 3: exit %d %s", code, errs)
	}
}

// TestSourceFlagWinsOverFileAndEnvironment: --docs replaces an index named
// by ragscope.toml or RAGSCOPE_INDEX, and --index a docs folder named by
// either; the two flags together stay an error.
func TestSourceFlagWinsOverFileAndEnvironment(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	other := filepath.Join(root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "---\ntitle: Gear Trains\n---\n\n## Backlash\n\nA gear train has backlash between its teeth.\n"
	if err := os.WriteFile(filepath.Join(other, "01-gears.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "other.idx")
	if code, _, errs := run(t, nil, "", "index", other, "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	conf := t.TempDir()
	tomlText := "[local]\nindex = " + strconv.Quote(idx) + "\n"
	if err := os.WriteFile(filepath.Join(conf, "ragscope.toml"), []byte(tomlText), 0o600); err != nil {
		t.Fatal(err)
	}
	firstPath := func(t *testing.T, out string) string {
		t.Helper()
		var doc QueryJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) == 0 {
			t.Fatalf("query --json: %v\n%s", err, out)
		}
		return doc.Results[0].DocPath
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"--docs over RAGSCOPE_INDEX", map[string]string{"RAGSCOPE_INDEX": idx}, []string{"--docs", docs}, "01-torque.md"},
		{"--docs over local.index", map[string]string{"__DIR": conf}, []string{"--docs", docs}, "01-torque.md"},
		{"--index over RAGSCOPE_DOCS", map[string]string{"RAGSCOPE_DOCS": docs}, []string{"--index", idx}, "01-gears.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"query", "--json"}, c.args...)
			code, out, errs := run(t, c.env, "", append(args, "torque gear backlash")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got := firstPath(t, out); !strings.HasSuffix(got, c.want) {
				t.Errorf("first hit %s, want the page %s", got, c.want)
			}
		})
	}
	code, _, errs := run(t, nil, "", "query", "--docs", docs, "--index", idx, "torque")
	if code == ExitOK || !strings.Contains(errs, "give either --index or --docs, not both") {
		t.Errorf("both flags: exit %d: %s", code, errs)
	}
}
