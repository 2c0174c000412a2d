package cli

import (
	"bytes"
	"context"
	"ragscope/app"
	"strings"
	"testing"
)

// Every help, the root's and each subcommand's, by flag or by `help`, is
// cobra's (description, usage, flags) followed once by the environment
// and the exit codes, and goes to stdout.
func TestHelpEndsWithEnvironment(t *testing.T) {
	env := envHelp(app.Providers())
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"query", "--help"}, {"help", "query"}, {"links", "-h"}, {"eval", "--help"}} {
		code, out, errs := run(t, nil, "", args...)
		if code != ExitOK || errs != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
			continue
		}
		if !strings.HasSuffix(out, env) || strings.Count(out, "\nEnvironment (flags win") != 1 {
			t.Errorf("%q: help does not end with the environment section, once:\n%s", args, out)
		}
		usage := strings.Index(out, "Usage:\n")
		flags := strings.Index(out, "Flags:\n")
		if usage <= 0 || flags < usage || flags > len(out)-len(env) {
			t.Errorf("%q: description, usage and flags are not before the environment:\n%s", args, out)
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
