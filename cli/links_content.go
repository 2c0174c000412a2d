package cli

import (
	"fmt"
	"io"

	"ragscope/links"
	"ragscope/present"
)

// writeContentText prints the content check's findings: chunks whose cited
// section does not hold their text (with where it is) and chunks whose text
// is not on the site, at most maxList of each (0 for all).
func writeContentText(w io.Writer, c *links.ContentReport, maxList int) {
	if c == nil || len(c.Findings) == 0 {
		return
	}
	note := ""
	if c.Policy == links.ContentWarn {
		note = ", warnings"
	}
	for _, kind := range []struct {
		verdict, title string
		n              int
	}{
		{links.VerdictWrongSection, "Wrong section: the anchor exists but the chunk's text is in another section", c.WrongSection},
		{links.VerdictTextNotFound, "Text not found: the chunk's text is not on the site (page edited since indexing?)", c.TextNotFound},
	} {
		if kind.n == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d %s%s):\n", kind.title, kind.n, present.Plural(kind.n, "chunk", "chunks"), note)
		shown := 0
		for _, f := range c.Findings {
			if f.Verdict != kind.verdict {
				continue
			}
			if maxList > 0 && shown == maxList {
				fmt.Fprintf(w, "    … and %d more (--max-list 0 or --json for all)\n", kind.n-maxList)
				break
			}
			shown++
			ref := f.ID
			if f.Section != "" {
				ref += fmt.Sprintf(" %q", f.Section)
			}
			fmt.Fprintf(w, "  %s\n", cleanLine(ref))
			fmt.Fprintf(w, "    cites    %s\n", cleanLine(f.URL))
			if f.Verdict == links.VerdictTextNotFound {
				fmt.Fprintf(w, "    only %.0f%% of its text is on the site: re-index the page\n", 100*f.FoundShare)
				continue
			}
			where := "the top of the page"
			if f.FoundAnchor != "" {
				where = "#" + f.FoundAnchor
				if f.FoundHeading != "" {
					where += fmt.Sprintf(" (%q)", f.FoundHeading)
				}
			}
			fmt.Fprintf(w, "    anchor exists but the text is in %s of %s\n", cleanLine(where), cleanLine(f.FoundSource))
			fmt.Fprintf(w, "    try      %s\n", cleanLine(f.FoundURL))
		}
	}
}
