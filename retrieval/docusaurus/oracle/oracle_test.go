package oracle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// EnvOracle enables the real-build tests: "1" checks the committed goldens
// against a real build, "update" rewrites them; unset or "0" skips them. They need npm and the npm
// registry (the first run installs into the cache, about a minute; later
// runs reuse it).
const EnvOracle = "RAGSCOPE_DOCUSAURUS_ORACLE"

// EnvCache overrides the install cache folder (default: the user cache
// folder's ragscope-docusaurus-oracle/<version>).
const EnvCache = "RAGSCOPE_DOCUSAURUS_ORACLE_CACHE"

// packageJSON pins what the oracle installs. github-slugger is the library
// Docusaurus's heading ids come from (a dependency of @docusaurus/utils).
// webpack is held at a release of Docusaurus 3.5's time: later 5.x
// releases removed files Docusaurus 3.5 requires.
const packageJSON = `{
  "name": "ragscope-docusaurus-oracle",
  "private": true,
  "dependencies": {
    "@docusaurus/core": "` + DocusaurusVersion + `",
    "@docusaurus/preset-classic": "` + DocusaurusVersion + `",
    "@mdx-js/react": "3.0.1",
    "clsx": "2.1.1",
    "prism-react-renderer": "2.4.0",
    "react": "18.3.1",
    "react-dom": "18.3.1",
    "github-slugger": "2.0.0"
  },
  "overrides": {
    "webpack": "5.94.0"
  }
}
`

func oracleMode(t *testing.T) string {
	t.Helper()
	mode := os.Getenv(EnvOracle)
	if mode == "" || mode == "0" {
		t.Skipf("real Docusaurus build skipped: set %s=1 to check the goldens against Docusaurus %s (needs npm), or =update to rewrite them", EnvOracle, DocusaurusVersion)
	}
	if mode != "1" && mode != "update" {
		t.Fatalf("%s=%q: use 1 (check) or update (rewrite the goldens)", EnvOracle, mode)
	}
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("real Docusaurus build skipped: %s is not installed (%v)", tool, err)
		}
	}
	return mode
}

// install puts the pinned packages into the cache folder once; a stamp
// holding package.json's hash marks a finished install.
func install(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(EnvCache)
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache folder for the npm install (set %s): %v", EnvCache, err)
		}
		dir = filepath.Join(base, "ragscope-docusaurus-oracle", DocusaurusVersion)
	}
	sum := sha256.Sum256([]byte(packageJSON))
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".ragscope-installed")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == want {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(packageJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run(t, dir, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	t.Logf("npm install of Docusaurus %s into %s: %s", DocusaurusVersion, dir, time.Since(start).Round(time.Second))
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "DOCUSAURUS_IGNORE_SSG_WARNINGS=true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out.String())
	}
	return out.Bytes()
}

// TestRealBuild builds every fixture site with the pinned Docusaurus and
// compares every route and element id with the committed goldens.
func TestRealBuild(t *testing.T) {
	mode := oracleMode(t)
	cache := install(t)
	for _, site := range Sites {
		t.Run(site, func(t *testing.T) {
			work := t.TempDir()
			src := filepath.Join(SitesDir(), site)
			siteDir := filepath.Join(work, "site")
			if err := os.CopyFS(siteDir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(cache, "node_modules"), filepath.Join(siteDir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			build := filepath.Join(work, "build")
			start := time.Now()
			run(t, siteDir, "node", filepath.Join(cache, "node_modules", "@docusaurus", "core", "bin", "docusaurus.mjs"), "build", "--out-dir", build)
			t.Logf("docusaurus build %s: %s", site, time.Since(start).Round(100*time.Millisecond))
			got, err := ReadBuild(build, site)
			if err != nil {
				t.Fatal(err)
			}
			if mode == "update" {
				writeJSON(t, GoldenPath(site), got)
				return
			}
			want, err := ReadGolden(site)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				gb, _ := json.MarshalIndent(got, "", "  ")
				t.Errorf("the real build of %s differs from %s; if the fixture changed on purpose, rerun with %s=update. Built:\n%s", site, GoldenPath(site), EnvOracle, gb)
			}
		})
	}
}

// writeJSON writes v indented, with "&" and "<" as they are (the goldens
// are read by people).
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sluggerScript prints, for the inputs file named by argv, github-slugger's
// slug() of every input and the ids of one slugger fed the sequence.
const sluggerScript = `
import fs from 'node:fs';
import GithubSlugger, {slug} from 'github-slugger';
const input = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
const slugger = new GithubSlugger();
process.stdout.write(JSON.stringify({
  slugs: input.inputs.map((s) => ({in: s, slug: slug(s)})),
  sequence: input.sequence.map((s) => ({in: s, slug: slugger.slug(s)})),
}));
`

// SluggerGolden is what github-slugger made of testdata/slugger.inputs.json.
type SluggerGolden struct {
	Library  string     `json:"library"`
	Slugs    []SlugCase `json:"slugs"`
	Sequence []SlugCase `json:"sequence"`
}

// SlugCase is one input and its slug.
type SlugCase struct {
	In   string `json:"in"`
	Slug string `json:"slug"`
}

// TestSlugger runs the real github-slugger (the version Docusaurus uses)
// over the committed inputs and compares with the committed golden, which
// retrieval's slug tests read.
func TestSlugger(t *testing.T) {
	mode := oracleMode(t)
	cache := install(t)
	inputs := filepath.Join(SitesDir(), "..", "slugger.inputs.json")
	out := run(t, cache, "node", "--input-type=module", "-e", sluggerScript, inputs)
	var got SluggerGolden
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("github-slugger output: %v\n%s", err, out)
	}
	got.Library = "github-slugger 2.0.0"
	golden := filepath.Join(SitesDir(), "..", "slugger.oracle.json")
	if mode == "update" {
		writeJSON(t, golden, got)
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want SluggerGolden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("github-slugger's output differs from %s; rerun with %s=update if the inputs changed", golden, EnvOracle)
	}
}
