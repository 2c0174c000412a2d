package docusaurus

import "strings"

// FrontMatter is the front matter block of a doc as Docusaurus finds it.
type FrontMatter struct {
	// Raw is the YAML between the delimiters ("" when there is none).
	Raw string
	// Body is the rest of the file.
	Body string
	// BodyLine is the 1-based line of the file the body starts on.
	BodyLine int
	// Found is true when the file opens with a closed front matter block.
	Found bool
	// Unclosed is true when the file opens with "---" and no line closes
	// it; Body is then the whole file after the opening line.
	Unclosed bool
}

// SplitFrontMatter separates a leading front matter block from a doc's
// source the way Docusaurus's parser (gray-matter) does: the file (after a
// byte order mark) starts with a "---" line and the block ends at the first
// later line starting with "---" whose rest is blank, so a closing "--- "
// with trailing spaces closes it (checked by a real build). A YAML
// document end marker "..." does not. CRLF line ends are accepted.
func SplitFrontMatter(src string) FrontMatter {
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.SplitAfter(src, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\r\n") != "---" {
		return FrontMatter{Body: src, BodyLine: 1}
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r\n") == "---" {
			return FrontMatter{
				Raw:      strings.Join(lines[1:i], ""),
				Body:     strings.Join(lines[i+1:], ""),
				BodyLine: i + 2,
				Found:    true,
			}
		}
	}
	return FrontMatter{Body: strings.Join(lines[1:], ""), BodyLine: 2, Unclosed: true}
}
