package cli

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// TestExitCodeRules: a command-line value its parser rejects is a usage
// error (64); a configuration that cannot be used, from any source, is 2.
func TestExitCodeRules(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"negative timeout flag", nil, []string{"--timeout", "-5s", "stats"}, ExitUsage},
		{"unknown slug style flag", nil, []string{"--slug-style", "weird", "stats"}, ExitUsage},
		{"timeout in seconds from the environment", map[string]string{"RAGSCOPE_TIMEOUT": "10"}, []string{"stats"}, ExitOK},
		{"timeout in seconds as a flag", nil, []string{"--timeout", "10", "stats"}, ExitOK},
		{"negative timeout from the environment", map[string]string{"RAGSCOPE_TIMEOUT": "-5s"}, []string{"stats"}, ExitConfig},
		{"unknown slug style from the environment", map[string]string{"RAGSCOPE_SLUG_STYLE": "weird"}, []string{"stats"}, ExitConfig},
		{"qdrant url that is not a url", map[string]string{"COHERE_API_KEY": "k"}, []string{"--qdrant-url", "::::", "--collection", "c", "stats"}, ExitConfig},
		{"missing index file", nil, []string{"--index", "/nonexistent/ragscope.idx", "stats"}, ExitConfig},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.env, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, errs)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK || !strings.HasPrefix(out, "ragscope ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errs)
		}
	}
	// `version` works even when the configuration is broken.
	code, out, _ := run(t, map[string]string{"RAGSCOPE_TOP_K": "many"}, "", "version")
	if code != ExitOK || !strings.HasPrefix(out, "ragscope ") {
		t.Errorf("version with a broken environment: exit %d, %q", code, out)
	}
	code, out, errs := run(t, nil, "", "stats", "--json")
	var doc StatsJSON
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.Version.GoVersion == "" || doc.Version.Version == "" {
		t.Errorf("stats --json lacks the version: exit %d, %s %s", code, out, errs)
	}
	v := versionFrom(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-22T19:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}})
	if got, want := v.String(), "ragscope (devel) rev 0123456789ab 2026-11-22T19:00:00Z dirty, go1.26.8"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if v := versionFrom(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}); v.String() != "ragscope v1.2.0, go1.26.8" {
		t.Errorf("tagged build: %q", v.String())
	}
}

// TestHelpShowsEffectiveDefaults: --help shows what ragscope.toml and the
// environment set, not the built-in default.
func TestHelpShowsEffectiveDefaults(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir+"/ragscope.toml", "[retrieval]\ntop_k = 9\ntimeout = \"12s\"\n")
	code, out, errs := run(t, map[string]string{"__DIR": dir, "RAGSCOPE_SLUG_STYLE": "simple"}, "", "query", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "(env RAGSCOPE_TOP_K) (default 9)") {
		t.Errorf("help lacks the file's top_k:\n%s", out)
	}
	// The global flags are in ragscope --help.
	code, out, errs = run(t, map[string]string{"__DIR": dir, "RAGSCOPE_SLUG_STYLE": "simple"}, "", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"(default 12s)", `(default "simple")`} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	// Without a file, the built-in default.
	_, out, _ = run(t, nil, "", "query", "--help")
	if !strings.Contains(out, "(env RAGSCOPE_TOP_K) (default 5)") {
		t.Errorf("help lacks the built-in top_k default:\n%s", out)
	}
}
