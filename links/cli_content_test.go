package links_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/cli"
	"ragscope/links"
)

// writeTree writes files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// An index of the old docs audited against the edited site: one chunk's
// paragraph moved to another section (wrong section, exit 4, the right
// anchor given), another's text rewritten (text not found).
func TestCLILinksWrongSection(t *testing.T) {
	dir := t.TempDir()
	cfg := "module.exports = { url: 'https://book.example.org', baseUrl: '/', trailingSlash: false };\n"
	page := func(lidar, cameras, fusion string) string {
		return "# Sensors\n\nRobots sense the world through cameras and lidar before they plan any motion.\n\n## Lidar\n\n" + lidar + "\n\n## Cameras\n\n" + cameras + "\n\n## Fusion\n\n" + fusion + "\n"
	}
	sweep := "A lidar sweeps a laser beam across the room and measures the time each pulse takes to come back."
	kalman := "A Kalman filter fuses the lidar ranges with the camera depth into one estimate of the pose."
	writeTree(t, dir, map[string]string{
		"old/docusaurus.config.js": cfg,
		"old/docs/sensors.md":      page(sweep, "A stereo camera pair estimates depth from the disparity between its two images.", kalman),
		"new/docusaurus.config.js": cfg,
		"new/docs/sensors.md":      page("Lidar is covered below.", "Monocular cameras need learned priors, as one image carries no metric scale.", sweep+"\n\n"+kalman),
	})
	code, out, errs := runCLI(t, "links", "--docs", filepath.Join(dir, "old/docs"), "--site", filepath.Join(dir, "new"))
	if code != cli.ExitCheck || !strings.Contains(out, "the text is in #fusion") || !strings.Contains(out, "https://book.example.org/docs/sensors#fusion") ||
		!strings.Contains(out, "Text not found") || !strings.Contains(out, "1 wrong section · 1 text not found") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "links", "--json", "--docs", filepath.Join(dir, "old/docs"), "--site", filepath.Join(dir, "new"))
	var rep links.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitCheck {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if rep.Summary.WrongSection != 1 || rep.Summary.TextNotFound != 1 || rep.Summary.Passed || rep.Content == nil || len(rep.Content.Findings) != 2 {
		t.Fatalf("summary %+v content %+v", rep.Summary, rep.Content)
	}
	code, out, _ = runCLI(t, "links", "--wrong-section=warn", "--docs", filepath.Join(dir, "old/docs"), "--site", filepath.Join(dir, "new"))
	if code != cli.ExitOK || !strings.Contains(out, "warnings") || !strings.Contains(out, "PASSED") {
		t.Errorf("warn: exit %d\n%s", code, out)
	}
	// The same docs as the site: every chunk's text is where it is cited.
	code, out, _ = runCLI(t, "links", "--docs", filepath.Join(dir, "new/docs"), "--site", filepath.Join(dir, "new"))
	if code != cli.ExitOK || !strings.Contains(out, "0 wrong section · 0 text not found") {
		t.Errorf("same docs: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "links", "--wrong-section", "maybe"); code != cli.ExitUsage || !strings.Contains(errs, "fail, warn or off") {
		t.Errorf("bad policy: exit %d %s", code, errs)
	}
}
