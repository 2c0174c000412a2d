package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"ragscope/internal/platform"
	"ragscope/internal/readlimit"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/goldenimport"
)

// nearExamples is how many near duplicates golden import shows.
const nearExamples = 5

type goldenImportFlags struct {
	out    string
	format string
	field  string
	column string
	force  bool
}

func (a *App) newGoldenImportCmd() *cobra.Command {
	var gf goldenImportFlags
	cmd := &cobra.Command{
		Use:   "import FILE -o SET.yaml",
		Short: "Turn real questions (JSONL, CSV or lines; - for stdin) into an unlabelled golden set",
		Long: `Read the questions of FILE (- reads standard input) and write them as a
golden set of unlabelled cases: an id and the question, no expectation.

FILE is JSONL (one object a line; --field names the question, a dotted
path reaches a nested field), CSV with a header row (--column names the
question column; .tsv is tab-separated) or plain text, one question a line.
The format comes from the extension (.jsonl .ndjson .json, .csv .tsv,
.txt), else from the content (a first line starting with { is JSONL);
--format overrides it. A JSONL line without the field is skipped and
counted; a line that is not a JSON object stops the import with its line
number.

Blank questions, exact duplicates and near duplicates (the same words
after case, punctuation and spacing are set aside, or within a tenth of
the text in edits) are dropped and counted; the first of each is kept, in
file order. The file is written atomically; an existing one only with
--force. eval reports unlabelled cases without passing or failing them:
the best-score distribution and the questions that find nothing above the
threshold (content gaps).

Exit codes: 0 written, 2 -o cannot be written, 64 bad usage or a FILE
that is missing, not a file, larger than 256 MiB, malformed, or holds no
question.`,
		Example: `  ragscope golden import chat-log.jsonl -o golden.yaml
  ragscope golden import questions.csv --column "User question" -o golden.yaml
  ragscope golden import logs.jsonl --field request.question -o golden.yaml
  cut -f3 log.tsv | ragscope golden import - -o golden.yaml
  ragscope eval golden.yaml --threshold 0.35`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("golden import takes one FILE (- for standard input), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runGoldenImport(cmd, args[0], gf)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&gf.out, "output", "o", "", "the golden set to write (YAML; - for standard output)")
	f.StringVar(&gf.format, "format", "auto", "the input's format: jsonl, csv, lines or auto")
	f.StringVar(&gf.field, "field", goldenimport.DefaultField, "JSONL: the field that holds the question (a dotted path for a nested one)")
	f.StringVar(&gf.column, "column", goldenimport.DefaultColumn, "CSV: the header of the question column")
	f.BoolVar(&gf.force, "force", false, "replace -o when it exists")
	return cmd
}

func (a *App) runGoldenImport(cmd *cobra.Command, file string, gf goldenImportFlags) error {
	format, err := goldenimport.ParseFormat(gf.format)
	if err != nil {
		return usageError{fmt.Errorf("--format: %w", err)}
	}
	if gf.out == "" {
		return Usagef("give the golden set to write: -o set.yaml (- for standard output)")
	}
	if !toStdout(gf.out) {
		// A file is replaced only with --force; a pipe or a device is
		// written to, never replaced.
		if st, err := os.Stat(gf.out); err == nil && !gf.force && st.Mode().IsRegular() {
			return Usagef("-o %s exists: give --force to replace it, or another file", gf.out)
		}
		// A set that cannot be written fails now, before FILE is read.
		if err := checkOutPath("-o", gf.out, "golden.yaml"); err != nil {
			return err
		}
	}

	var in io.Reader
	source := file
	if file == "-" {
		in, source = a.Stdin, "standard input"
	} else {
		fh, _, err := readlimit.Open(file)
		var notFile *readlimit.NotRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return Usagef("%s does not exist", file)
		case errors.As(err, &notFile):
			return Usagef("%s is %s, not a file of questions", file, readlimit.Kind(notFile.Mode))
		case err != nil:
			return usageError{fmt.Errorf("read %s: %w", file, err)}
		}
		defer fh.Close()
		in = fh
	}
	opts := goldenimport.Options{Format: format, Field: gf.field, Column: gf.column, Name: file}
	qs, drops, st, err := goldenimport.Import(cmd.Context(), readlimit.Reader(in, readlimit.Questions), opts)
	switch {
	case errors.Is(err, readlimit.ErrTooLarge):
		return Usagef("%s is larger than %s, the most ragscope reads of a question file: split it", source, readlimit.Size(readlimit.Questions))
	case err != nil:
		return usageError{err}
	case len(qs) == 0:
		return Usagef("%s holds no question (%s)", source, goldenimport.Summary(st))
	}

	h := goldenimport.Header{Source: source, Field: gf.field, Column: gf.column, Stats: st, Date: time.Now()}
	// What is written is a set eval loads: EncodeSet loads it back
	// before anything is written.
	data, err := goldenimport.EncodeSet(h, qs)
	if err != nil {
		return fmt.Errorf("golden import made a set eval cannot load (a bug): %w", err)
	}
	report := cmd.OutOrStdout()
	if toStdout(gf.out) {
		report = cmd.ErrOrStderr() // the set owns standard output
		if _, err := cmd.OutOrStdout().Write(data); err != nil {
			return fmt.Errorf("write the golden set: %w", err)
		}
	} else if err := platform.WriteFile(cmd.Context(), gf.out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("%w: -o: %w", retrieval.ErrConfig, err)
	}
	writeImportReport(report, source, gf.out, st, drops)
	return nil
}

// writeImportReport says what golden import read, dropped (with a few
// near duplicates, the drops a person may want to check) and wrote.
func writeImportReport(w io.Writer, source, out string, st goldenimport.Stats, drops []goldenimport.Drop) {
	from := ""
	switch st.Format {
	case goldenimport.FormatJSONL:
		from = "JSONL"
	case goldenimport.FormatCSV:
		from = "CSV"
	default:
		from = "one question a line"
	}
	fmt.Fprintf(w, "%s (%s): %s\n", cleanLine(source), from, goldenimport.Summary(st))
	shown := 0
	for _, d := range drops {
		if d.Reason != goldenimport.ReasonNear {
			continue
		}
		if shown == nearExamples {
			fmt.Fprintf(w, "  … and %d more near %s\n", st.Near-shown, present.Plural(st.Near-shown, "duplicate", "duplicates"))
			break
		}
		shown++
		fmt.Fprintf(w, "  near duplicate: line %d %q repeats line %d %q\n", d.Question.Line, clip(d.Question.Text, 60), d.Of.Line, clip(d.Of.Text, 60))
	}
	dest := cleanLine(out)
	if out == "-" {
		dest = "standard output"
	}
	fmt.Fprintf(w, "Wrote %d unlabelled %s to %s (%s … %s).\n", st.Kept, present.Plural(st.Kept, "case", "cases"), dest, goldenimport.ID(0, st.Kept), goldenimport.ID(st.Kept-1, st.Kept))
	if out != "-" {
		fmt.Fprintf(w, "Next: ragscope eval %s --threshold 0.35 (unlabelled cases report their best scores and the questions that find nothing above the threshold)\n", cleanLine(out))
	}
}
