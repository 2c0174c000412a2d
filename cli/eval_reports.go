package cli

import (
	"fmt"
	"io"

	"ragscope/internal/platform"
	"ragscope/retrieval/eval"
)

// checkReportFiles checks, before the run, that every report file asked
// for (--out, --junit, --markdown) can be written (exit 2 otherwise).
func checkReportFiles(ef evalFlags) error {
	for _, f := range reportFiles(ef) {
		if err := checkOutPath(f.flag, f.path, f.example); err != nil {
			return err
		}
	}
	return nil
}

// writeReportFiles writes every report file asked for, each atomically:
// a reader (a CI step, a later --baseline) sees the old file or the whole
// new one.
func writeReportFiles(ef evalFlags, rep eval.Report) error {
	for _, f := range reportFiles(ef) {
		if err := platform.WriteFile(f.path, func(w io.Writer) error { return f.write(w, rep) }); err != nil {
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
