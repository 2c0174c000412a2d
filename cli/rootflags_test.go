package cli

import (
	"bytes"
	"context"
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
