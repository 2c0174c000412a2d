package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// indexDocs writes a docs folder with one page and returns the folder.
func indexDocs(t *testing.T, root string) string {
	t.Helper()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "---\ntitle: Torque Control\n---\n\n## Current Loops\n\nA motor driver closes a current loop to control torque precisely.\n"
	if err := os.WriteFile(filepath.Join(docs, "01-torque.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestIndexChecksOutputBeforeBuilding(t *testing.T) {
	root := t.TempDir()
	// An empty docs folder would fail the build: the output error must
	// come first, proving the check runs before any work.
	empty := t.TempDir()
	code, _, errs := run(t, nil, "", "index", empty, "-o", filepath.Join(root, "no-such-folder", "x.idx"))
	if code != ExitConfig || !strings.Contains(errs, "cannot write the index") || strings.Contains(errs, "no markdown") {
		t.Errorf("missing output folder: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, nil, "", "index", empty, "-o", root)
	if code != ExitConfig || !strings.Contains(errs, "it is a folder") {
		t.Errorf("output is a folder: exit %d, %q", code, errs)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("files left in the output folder: %v", entries)
	}
}

func TestIndexSkipsSymlinksOutsideDocs(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("# Secret\n\nPrivate launch codes for the gripper firmware.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(docs, "02-secret.md")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	// A link inside the docs folder is followed.
	if err := os.Symlink(filepath.Join(docs, "01-torque.md"), filepath.Join(docs, "03-alias.md")); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, "book.idx")
	code, out, errs := run(t, nil, "", "index", docs, "-o", idx)
	if code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "02-secret.md") || !strings.Contains(errs, "outside the docs folder") || !strings.Contains(out, "(1 files skipped)") {
		t.Errorf("outside link not reported:\nstdout %s\nstderr %s", out, errs)
	}
	if strings.Contains(errs, "03-alias.md") || !strings.Contains(out, "Indexed 2 pages") {
		t.Errorf("inside link not indexed:\nstdout %s\nstderr %s", out, errs)
	}
	// Exit 1 (nothing relevant) is expected: only the text matters.
	_, out, _ = run(t, nil, "", "--index", idx, "query", "--json", "launch codes gripper firmware")
	if !strings.Contains(out, `"schema"`) || strings.Contains(out, "Private launch codes") || strings.Contains(out, "02-secret") {
		t.Errorf("the skipped file's text reached the index:\n%s", out)
	}

	code, out, errs = run(t, nil, "", "index", docs, "-o", idx, "--follow-symlinks")
	if code != ExitOK || !strings.Contains(out, "Indexed 3 pages") || strings.Contains(errs, "02-secret.md") {
		t.Errorf("--follow-symlinks: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

func TestIndexInterruptedKeepsOldFile(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	idx := filepath.Join(root, "book.idx")
	old := []byte("the previous index")
	if err := os.WriteFile(idx, old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: root,
		LookupEnv: func(string) (string, bool) { return "", false }}
	if code := app.Run(ctx, []string{"index", docs, "-o", idx}); code != ExitInterrupted {
		t.Errorf("exit %d, want %d: %s", code, ExitInterrupted, errb.String())
	}
	if got, _ := os.ReadFile(idx); !bytes.Equal(got, old) {
		t.Errorf("old index replaced: %q", got)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "docs" && e.Name() != "book.idx" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestFacetLine(t *testing.T) {
	var values []string
	counts := map[string]int64{}
	for i := range 25 {
		v := fmt.Sprintf("ch-%02d", i)
		values = append(values, v)
		counts[v] = int64(i % 5)
	}
	got := facetLine(values, counts)
	if !strings.HasPrefix(got, "ch-04, ch-09, ch-14, ch-19, ch-24, ch-03,") || !strings.HasSuffix(got, " and 5 more") {
		t.Errorf("facetLine = %q", got)
	}
	if n := strings.Count(got, "ch-"); n != 20 {
		t.Errorf("%d values shown, want 20", n)
	}
	if got := facetLine([]string{"b", "a"}, nil); got != "b, a" {
		t.Errorf("without counts = %q, want the backend's order", got)
	}
}

func TestStatsFacetsCappedOnALargeIndex(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	for i := range 30 {
		dir := filepath.Join(docs, fmt.Sprintf("ch%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Module ch29 has the most sections, ch00 the fewest: frequency
		// order is not the alphabetical one.
		var page strings.Builder
		fmt.Fprintf(&page, "# Chapter %d\n\n", i)
		for s := range 1 + i/10 {
			fmt.Fprintf(&page, "## Part %d\n\nServo tuning notes number %d for chapter %d.\n\n", s, s, i)
		}
		if err := os.WriteFile(filepath.Join(dir, "page.md"), []byte(page.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(t, nil, "", "--docs", docs, "stats")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "module ") {
			line = l
		}
	}
	if !strings.Contains(line, "module         ch20, ch21,") || !strings.Contains(line, " and 10 more") || strings.Count(line, ",") != 19 || strings.Contains(line, "ch00") {
		t.Errorf("module facet line: %q\n%s", line, out)
	}
}

func TestQueryTimingsIncludeTheLoad(t *testing.T) {
	code, out, errs := run(t, nil, "", "query", "--json", "What is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	tm := doc.TimingsMS
	if tm.Load <= 0 || tm.Total < tm.Load+tm.Embed {
		t.Errorf("timings %+v: the demo load is missing or not in the total", tm)
	}
	code, out, errs = run(t, nil, "", "query", "What is ROS 2?")
	if code != ExitOK || !regexp.MustCompile(`results · load [0-9.]+ ms · embed `).MatchString(out) {
		t.Errorf("text timings: exit %d, %s\n%s", code, errs, out)
	}
}

// TestIndexBuildGCPercent checks that index collects garbage more often
// while it builds (a lower peak) and restores the setting after, and that
// a GOGC the user set is left alone.
func TestIndexBuildGCPercent(t *testing.T) {
	root := t.TempDir()
	docs := indexDocs(t, root)
	var during int
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	index := func(env map[string]string, out string) {
		t.Helper()
		var errb bytes.Buffer
		app := &App{
			Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errb, Dir: root,
			LookupEnv:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			beforeBuild: func() { during = debug.SetGCPercent(-1); debug.SetGCPercent(during) },
		}
		if code := app.Run(context.Background(), []string{"index", docs, "-o", filepath.Join(root, out)}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	index(nil, "a.idx")
	if during != buildGCPercent {
		t.Errorf("GC percent during the build = %d, want %d", during, buildGCPercent)
	}
	if now := debug.SetGCPercent(100); now != 100 {
		t.Errorf("GC percent after the build = %d, want it restored to 100", now)
	}
	index(map[string]string{"GOGC": "200"}, "b.idx")
	if during != 100 {
		t.Errorf("with GOGC set, GC percent during the build = %d, want it untouched (100)", during)
	}
}

// An index built from a docs folder inside a Docusaurus site remembers the
// site: `--index F links` audits against it without --site, as --docs does.
func TestIndexRemembersItsSiteForLinks(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site")
	if err := os.CopyFS(site, os.DirFS("../links/testdata/site")); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "book.idx")
	if code, _, errs := run(t, nil, "", "index", filepath.Join(site, "docs"), "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	code, out, errs := run(t, nil, "", "--index", idx, "links")
	if code != ExitOK || !strings.Contains(out, "PASSED") {
		t.Fatalf("links: exit %d\n%s\n%s", code, out, errs)
	}
	// Once the site folder is gone, --site is asked for again.
	if err := os.RemoveAll(site); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, nil, "", "--index", idx, "links"); code != ExitConfig || !strings.Contains(errs, "--site") {
		t.Fatalf("links without the site: exit %d %s", code, errs)
	}
}

// Pointed at the site folder rather than its docs folder, index takes the
// docs folder the config names, says so, and builds citation URLs on the
// config's url and baseUrl.
func TestIndexGivenTheSiteFolder(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site")
	if err := os.CopyFS(site, os.DirFS("../links/testdata/site")); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "book.idx")
	code, out, errs := run(t, nil, "", "index", site, "-o", idx)
	if code != ExitOK {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	if !strings.Contains(errs, "is a Docusaurus site folder: indexing its docs folder "+filepath.Join(site, "docs")) {
		t.Errorf("no note of the docs folder taken:\n%s", errs)
	}
	if strings.Contains(out, "no docusaurus.config.js found") || !strings.Contains(out, "Citation base: http") {
		t.Errorf("citation base not from the config:\n%s", out)
	}
	if code, out, errs := run(t, nil, "", "--index", idx, "links"); code != ExitOK || !strings.Contains(out, "PASSED") {
		t.Fatalf("links: exit %d\n%s\n%s", code, out, errs)
	}
	// --docs takes the site folder the same way.
	if code, out, errs := run(t, nil, "", "--docs", site, "query", "sensors"); code != ExitOK || !strings.Contains(out, "local docs "+filepath.Join(site, "docs")) {
		t.Errorf("--docs SITE: exit %d\n%s\n%s", code, out, errs)
	}
}
