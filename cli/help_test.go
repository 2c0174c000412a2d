package cli

import (
	"bytes"
	"context"
	"ragscope/app"
	"strings"
	"testing"
)

// ragscope --help (by flag or by `help`) is cobra's (description, usage,
// flags) followed once by the environment and the exit codes. A
// subcommand's help is its own: its flags, then one line pointing to
// ragscope --help, with neither the global flags nor the environment
// table repeated. Every help goes to stdout.
func TestHelpEndsWithEnvironment(t *testing.T) {
	env := envHelp(app.Providers())
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK || errs != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
			continue
		}
		if !strings.HasSuffix(out, env) || strings.Count(out, "\nEnvironment (flags win") != 1 || !strings.Contains(out, "Flags:\n") || !strings.Contains(out, "--index string") {
			t.Errorf("%q: help does not end with the environment section, once:\n%s", args, out)
		}
		usage := strings.Index(out, "Usage:\n")
		flags := strings.Index(out, "Flags:\n")
		if usage <= 0 || flags < usage || flags > len(out)-len(env) {
			t.Errorf("%q: description, usage and flags are not before the environment:\n%s", args, out)
		}
	}
	for _, args := range [][]string{{"query", "--help"}, {"help", "query"}, {"links", "-h"}, {"eval", "--help"}, {"golden", "generate", "--help"}} {
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK || errs != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
			continue
		}
		if !strings.HasSuffix(out, globalHelpPointer) || strings.Contains(out, "Environment (flags win") || strings.Contains(out, "Global Flags:") || strings.Contains(out, "--index string") {
			t.Errorf("%q: a subcommand's help repeats the global tables or lacks the pointer to ragscope --help:\n%s", args, out)
		}
		if !strings.Contains(out, "Usage:\n") || !strings.Contains(out, "Flags:\n") || !strings.Contains(out, "-h, --help") {
			t.Errorf("%q: no usage or own flags:\n%s", args, out)
		}
		// Long descriptions stay, the tables go: none runs past 100 lines.
		if n := strings.Count(out, "\n"); n > 100 {
			t.Errorf("%q: %d lines", args, n)
		}
	}
	_, out, _ := run(t, nil, "", "--version")
	if strings.Contains(out, "Environment") || strings.Count(out, "\n") != 1 {
		t.Errorf("--version prints more than its line: %q", out)
	}
}

// BenchmarkHelp is the command line's own work for `ragscope --help`
// (building the command tree, the effective defaults, writing the help),
// in process: the whole process is BenchmarkProcessHelp.
func BenchmarkHelp(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Dir: dir,
			LookupEnv: func(string) (string, bool) { return "", false }}
		if code := app.Run(context.Background(), []string{"--help"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, out.String())
		}
	}
}

// A usage error points to the help of the command that was run, and a
// stray or mistyped word is a usage error (64), not a failure (1).
func TestUsageErrorPointsToTheCommandsHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
		help string
	}{
		{[]string{"query", "--bogus"}, "unknown flag: --bogus", "ragscope query --help"},
		{[]string{"query"}, "query takes exactly one QUESTION", "ragscope query --help"},
		{[]string{"golden", "import", "--bogus"}, "unknown flag", "ragscope golden import --help"},
		{[]string{"stats", "extra"}, `ragscope stats takes no arguments, got "extra"`, "ragscope stats --help"},
		{[]string{"bogus"}, `unknown command "bogus" for "ragscope"`, "ragscope --help"},
		{[]string{"--bogus"}, "unknown flag: --bogus", "ragscope --help"},
	} {
		code, _, errs := run(t, nil, "", c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.msg) || !strings.HasSuffix(errs, "Run '"+c.help+"' for usage.\n") {
			t.Errorf("%q: exit %d: %s", c.args, code, errs)
		}
	}
}
