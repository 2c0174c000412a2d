package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"ragscope/retrieval/assess/eval"
)

// checkReportFiles checks, before the run, that every report file asked
// for (--out, --junit, --markdown) can be written (exit 2 otherwise), and
// that at most one goes to standard output, where --json's report goes
// too (two reports in one stream could not be read apart).
func checkReportFiles(ef evalFlags) error {
	var onStdout []string
	if ef.json {
		onStdout = append(onStdout, "--json")
	}
	for _, f := range reportFiles(ef) {
		if toStdout(f.path) {
			onStdout = append(onStdout, f.flag+" "+f.path)
		}
		if err := checkOutPath(f.flag, f.path, f.example); err != nil {
			return err
		}
	}
	if len(onStdout) > 1 {
		return stdoutTwice(onStdout...)
	}
	return nil
}

// reportOnStdout reports whether one of the report files asked for goes
// to standard output: the text summary then goes to standard error.
func reportOnStdout(ef evalFlags) bool {
	for _, f := range reportFiles(ef) {
		if toStdout(f.path) {
			return true
		}
	}
	return false
}

// writeReportFiles writes every report file asked for (writeOutFile),
// each atomically: a reader (a CI step, a later --baseline) sees the old
// file or the whole new one. Each is written whole, without the
// configuration's secrets (a provider's error quoting its key is hidden,
// whatever provider it is).
func writeReportFiles(ctx context.Context, ef evalFlags, stdout io.Writer, rep eval.Report, secrets []string) error {
	for _, f := range reportFiles(ef) {
		var buf bytes.Buffer
		if err := writeHidden(&buf, secrets, func(w io.Writer) error { return f.write(w, rep) }); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
		if err := writeOutFile(ctx, f.path, stdout, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	return nil
}

type reportFile struct {
	flag, path, example string
	write               func(io.Writer, eval.Report) error
}

func reportFiles(ef evalFlags) []reportFile {
	var out []reportFile
	add := func(flag, path, example string, write func(io.Writer, eval.Report) error) {
		if path != "" {
			out = append(out, reportFile{flag, path, example, write})
		}
	}
	add("--out", ef.out, "report.json", func(w io.Writer, r eval.Report) error { return writeJSON(w, r) })
	add("--junit", ef.junit, "junit.xml", eval.WriteJUnit)
	add("--markdown", ef.markdown, "summary.md", eval.WriteMarkdown)
	return out
}

// stdoutTwice is the usage error for outputs that would all go to
// standard output, where they could not be read apart.
func stdoutTwice(outputs ...string) error {
	if len(outputs) == 2 {
		return Usagef("%s and %s both write to standard output: send one to a file", outputs[0], outputs[1])
	}
	return Usagef("%s and %s all write to standard output: send all but one to a file", strings.Join(outputs[:len(outputs)-1], ", "), outputs[len(outputs)-1])
}
