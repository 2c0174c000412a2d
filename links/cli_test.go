package links_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"ragscope/cli"
	"ragscope/links"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &cli.App{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(string) (string, bool) { return "", false },
	}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// The demo passes with the github rule and reports
// the slug-rule breakages with the simple one.
func TestCLILinksDemo(t *testing.T) {
	code, out, errs := runCLI(t, "links")
	if code != cli.ExitOK || !strings.Contains(out, "PASSED") {
		t.Fatalf("github: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "chunks read") {
		t.Errorf("no progress on stderr: %q", errs)
	}
	code, out, _ = runCLI(t, "links", "--slug-style", "simple")
	if code != cli.ExitCheck || !strings.Contains(out, "slug rule mismatch") || !strings.Contains(out, "FAILED") {
		t.Errorf("simple: exit %d\n%s", code, out)
	}
}

func TestCLILinksJSONRenamedSite(t *testing.T) {
	code, out, errs := runCLI(t, "links", "--json", "--docs", "testdata/site/docs", "--site", "testdata/renamed", "--sample", "1")
	if code != cli.ExitCheck {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var rep links.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Schema != "ragscope.links/v1" {
		t.Errorf("schema %q", rep.Schema)
	}
	var renamedPage, renamedHeading bool
	for _, u := range rep.URLs {
		if strings.Contains(u.URL, "/basics/topics#") && u.Status == links.StatusPageMissing && strings.Contains(u.Suggestion, "topics-and-messages") {
			renamedPage = true
		}
		if strings.HasSuffix(u.URL, "#why-simulate") && u.Status == links.StatusAnchorMissing && u.Suggestion == "why-simulation-matters" {
			renamedHeading = true
		}
		if len(u.Sample) > 1 {
			t.Errorf("--sample 1 gave %d", len(u.Sample))
		}
	}
	if !renamedPage || !renamedHeading {
		t.Errorf("renamed page %v, renamed heading %v:\n%s", renamedPage, renamedHeading, out)
	}
	if rep.Coverage == nil || len(rep.Coverage.UncitedPages) != 1 {
		t.Errorf("coverage = %+v", rep.Coverage)
	}
}

func TestCLILinksNoSite(t *testing.T) {
	code, _, errs := runCLI(t, "links", "--docs", "testdata/renamed/docs/01-basics")
	if code != cli.ExitConfig || !strings.Contains(errs, "--site") {
		t.Errorf("exit %d: %s", code, errs)
	}
	code, _, errs = runCLI(t, "links", "--site", "testdata/nope")
	if code != cli.ExitConfig {
		t.Errorf("missing site folder: exit %d: %s", code, errs)
	}
}
