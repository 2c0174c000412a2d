package cli

import (
	"io/fs"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedSecretsNeverPrinted plants distinctive secrets in every
// configuration source (.env, ragscope.toml, the environment, flags), breaks
// each source the ways a user would, runs ragscope with a --debug log, and
// checks that neither output stream nor any file ragscope wrote holds a
// secret, while the error still names the source.
func TestPlantedSecretsNeverPrinted(t *testing.T) {
	const mark = "PLANTEDx9"
	key := func(n string) string { return "sk-" + mark + "-" + n }
	goodEnv := map[string]string{
		"COHERE_API_KEY": key("cohere"), "QDRANT_API_KEY": key("qdrant"),
		"OPENAI_API_KEY": key("openai"), "GEMINI_API_KEY": key("gemini"),
	}
	cases := []struct {
		name    string
		dotenv  string
		toml    string
		env     map[string]string
		args    []string
		code    int
		mention string // what the error must name instead of the value
	}{
		{name: ".env bad line", dotenv: "COHERE_API_KEY=" + key("a") + "\nthis line is broken\nQDRANT_API_KEY=" + key("b") + "\n", code: ExitConfig, mention: ".env line 2"},
		{name: ".env unterminated quote", dotenv: "COHERE_API_KEY=\"" + key("a") + "\nQDRANT_API_KEY=" + key("b") + "\n", code: ExitConfig, mention: ".env line 1: COHERE_API_KEY"},
		{name: ".env bad name", dotenv: "COHERE-API-KEY=" + key("a") + "\n", code: ExitConfig, mention: ".env line 1"},
		{name: "toml unterminated string", toml: "[cohere]\napi_key = \"" + key("a") + "\n", code: ExitConfig, mention: "ragscope.toml line 2"},
		{name: "toml bare value", toml: "[cohere]\napi_key = " + key("a") + "\n", code: ExitConfig, mention: "ragscope.toml line 2"},
		{name: "toml wrong type", toml: "[retrieval]\ntop_k = \"" + key("a") + "\"\n", code: ExitConfig, mention: "top_k"},
		{name: "toml bad timeout", toml: "[retrieval]\ntimeout = \"" + key("a") + "\"\n", code: ExitConfig, mention: "retrieval.timeout"},
		{name: "toml unknown key", toml: "[cohere]\napikey = \"" + key("a") + "\"\n", code: ExitConfig, mention: "cohere.apikey"},
		{name: "toml bad backend", toml: "backend = \"" + key("a") + "\"\n", code: ExitConfig, mention: "backend"},
		{name: "env timeout", env: map[string]string{"RAGSCOPE_TIMEOUT": key("a")}, code: ExitConfig, mention: "RAGSCOPE_TIMEOUT"},
		{name: "env top_k", env: map[string]string{"RAGSCOPE_TOP_K": key("a")}, code: ExitConfig, mention: "RAGSCOPE_TOP_K"},
		{name: "env threshold", env: map[string]string{"RAGSCOPE_THRESHOLD": key("a")}, code: ExitConfig, mention: "RAGSCOPE_THRESHOLD"},
		{name: "env backend", env: map[string]string{"RAGSCOPE_BACKEND": key("a")}, code: ExitConfig, mention: "RAGSCOPE_BACKEND"},
		{name: "env embedder", env: map[string]string{"RAGSCOPE_EMBEDDER": key("a")}, code: ExitConfig, mention: "RAGSCOPE_EMBEDDER"},
		{name: "env slug style", env: map[string]string{"RAGSCOPE_SLUG_STYLE": key("a")}, code: ExitConfig, mention: "RAGSCOPE_SLUG_STYLE"},
		{name: "env qdrant url with password", env: map[string]string{"QDRANT_URL": "http://user:" + key("a") + "@::::", "QDRANT_COLLECTION": "c"}, code: ExitConfig, mention: "QDRANT_URL"},
		{name: "flag top-k", args: []string{"-k", key("a")}, code: ExitUsage, mention: "--top-k"},
		{name: "flag threshold", args: []string{"--threshold", key("a")}, code: ExitUsage, mention: "--threshold"},
		{name: "flag timeout", args: []string{"--timeout", key("a")}, code: ExitUsage, mention: "--timeout"},
		{name: "flag backend", args: []string{"--backend", key("a")}, code: ExitUsage, mention: "backend"},
		{name: "flag slug style", args: []string{"--slug-style", key("a")}, code: ExitUsage, mention: "--slug-style"},
		{name: ".env export with a bad name", dotenv: "export COHERE-API-KEY=" + key("a") + "\n", code: ExitConfig, mention: ".env line 1"},
		{name: ".env unterminated single quote", dotenv: "OPENAI_API_KEY='" + key("a") + "\nGEMINI_API_KEY=" + key("b") + "\n", code: ExitConfig, mention: ".env line 1: OPENAI_API_KEY"},
		{name: ".env key without =", dotenv: "QDRANT_API_KEY " + key("a") + "\n", code: ExitConfig, mention: ".env line 1"},
		{name: "toml key as a list", toml: "[cohere]\napi_key = [\"" + key("a") + "\"]\n", code: ExitConfig, mention: "cohere.api_key"},
		{name: "toml key as a table", toml: "[openai]\napi_key = { value = \"" + key("a") + "\" }\n", code: ExitConfig, mention: "openai.api_key"},
		{name: "toml unterminated literal string", toml: "[gemini]\napi_key = '" + key("a") + "\n", code: ExitConfig, mention: "ragscope.toml line 2"},
		{name: "toml duplicate key", toml: "[qdrant]\napi_key = \"" + key("a") + "\"\napi_key = \"" + key("b") + "\"\n", code: ExitConfig, mention: "ragscope.toml"},
		{name: "toml qdrant url with password", toml: "[qdrant]\nurl = \"http://u:" + key("a") + "@::::\"\ncollection = \"c\"\n", code: ExitConfig, mention: "QDRANT_URL"},
		{name: "env dimensions", env: map[string]string{"RAGSCOPE_EMBED_DIMENSIONS": key("a")}, code: ExitConfig, mention: "RAGSCOPE_EMBED_DIMENSIONS"},
		{name: "env dedup", env: map[string]string{"RAGSCOPE_DEDUP": key("a")}, code: ExitConfig, mention: "RAGSCOPE_DEDUP"},
		{name: "flag dimensions", args: []string{"--dimensions", key("a")}, code: ExitUsage, mention: "--dimensions"},
		{name: "flag embedder", args: []string{"--embedder", key("a")}, code: ExitUsage, mention: "--embedder"},
		{name: "flag qdrant url with password", args: []string{"--qdrant-url", "http://u:" + key("a") + "@::::", "--collection", "c"}, code: ExitConfig, mention: "QDRANT_URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.dotenv != "" {
				writeTestFile(t, filepath.Join(dir, ".env"), tc.dotenv)
			}
			if tc.toml != "" {
				writeTestFile(t, filepath.Join(dir, "ragscope.toml"), tc.toml)
			}
			env := map[string]string{"__DIR": dir}
			for k, v := range goodEnv {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			logFile := filepath.Join(dir, "debug.log")
			args := append([]string{"--debug", logFile, "query"}, tc.args...)
			args = append(args, "what is ROS 2?")
			code, out, errs := run(t, env, "", args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			if !strings.Contains(errs, tc.mention) {
				t.Errorf("stderr does not name %q: %s", tc.mention, errs)
			}
			for name, text := range map[string]string{"stdout": out, "stderr": errs} {
				if strings.Contains(text, mark) {
					t.Errorf("%s holds a planted secret: %s", name, text)
				}
			}
			// Every file ragscope wrote (the debug log included).
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || d.Name() == ".env" || d.Name() == "ragscope.toml" {
					return err
				}
				b, rerr := os.ReadFile(p)
				if rerr == nil && strings.Contains(string(b), mark) {
					t.Errorf("%s holds a planted secret", p)
				}
				return nil
			})
		})
	}
}

// TestDebugLogSecretsAndMode runs a working query with every key set and a
// --debug file that already exists with mode 0644: the log starts with the
// version, holds no key, and is narrowed to 0600.
func TestDebugLogSecretsAndMode(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "debug.log")
	writeTestFile(t, logFile, "")
	if err := os.Chmod(logFile, 0o644); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, ".env"), "COHERE_API_KEY=sk-PLANTEDx9-env\n")
	env := map[string]string{"__DIR": dir, "QDRANT_API_KEY": "sk-PLANTEDx9-q", "OPENAI_API_KEY": "sk-PLANTEDx9-o", "RAGSCOPE_BACKEND": "demo"}
	code, out, errs := run(t, env, "", "--debug", logFile, "query", "--json", "what is ROS 2?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if !strings.Contains(strings.SplitN(log, "\n", 2)[0], "version=") {
		t.Errorf("the debug log does not start with the version:\n%s", log)
	}
	for name, text := range map[string]string{"stdout": out, "stderr": errs, "debug log": log} {
		if strings.Contains(text, "PLANTEDx9") {
			t.Errorf("%s holds a planted secret", name)
		}
	}
	st, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("existing debug log has mode %o, want 600", st.Mode().Perm())
	}
}

// TestDebugLogHidesURLCredentials: whatever a library logs to the --debug
// file, through ragscope's logger or, while the explorer runs, through the
// standard log and slog defaults, loses URL credentials (redact.Text) and
// the configured keys and URL credentials wherever they appear.
func TestDebugLogHidesURLCredentials(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "debug.log")
	a := &App{LookupEnv: func(string) (string, bool) { return "", false }, Dir: dir}
	a.Cfg.DebugLog = logFile
	a.Cfg = a.Cfg.WithKey("openai", "sk-PLANTEDx9-openai")
	a.Cfg = a.Cfg.WithBaseURL("gemini", "http://user:PLANTEDx9pw@gemini.example/?key=PLANTEDx9key")
	a.debugLogger().Debug("request", "url", "https://h.example/v1?alt=json&token=PLANTEDx9tok", "err", `Post "http://gemini.example/?key=PLANTEDx9key": dial tcp: refused`)
	a.debugLogger().Debug("echo", "body", "the key PLANTEDx9key and the password PLANTEDx9pw, auth sk-PLANTEDx9-openai")
	restore, err := a.routeLogs()
	if err != nil {
		t.Fatal(err)
	}
	log.Printf("grpc: dialing http://u:PLANTEDx9dial@q.example:6334/?api_key=PLANTEDx9api")
	slog.Info("retry", "url", "https://h.example/v1beta?x-goog-api-key=PLANTEDx9goog")
	restore()
	if a.debugFile != nil {
		_ = a.debugFile.Close()
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.Contains(text, "PLANTED") {
		t.Errorf("the debug log holds a planted credential:\n%s", text)
	}
	for _, want := range []string{"https://h.example/v1?alt=json&token=[redacted]", "gemini.example/?key=[redacted]", "q.example:6334/?api_key=[redacted]", "v1beta?x-goog-api-key=[redacted]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the debug log lacks %q:\n%s", want, text)
		}
	}
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
