package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/termsafe"
)

// scoreBar draws score (0..1) as width cells: filled cells for the score,
// light shade for the rest. Scores outside 0..1 are clamped.
func scoreBar(score float64, width int) (full, empty string) {
	if width <= 0 {
		return "", ""
	}
	if math.IsNaN(score) || score < 0 {
		score = 0
	}
	if score > 1 {
		score = 1
	}
	n := int(math.Round(score * float64(width)))
	return strings.Repeat("█", n), strings.Repeat("░", width-n)
}

// truncate cuts s (which may hold styles) to width cells with an ellipsis.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// titleSection is "title - section" of a chunk; the doc path stands in
// for a missing title.
func titleSection(c *retrieval.Chunk) string {
	title := c.Title
	if title == "" {
		title = c.DocPath
	}
	if title == "" {
		title = "(untitled)"
	}
	if c.Section != "" && c.Section != c.Title {
		title += " - " + c.Section
	}
	return termsafe.Line(title)
}

// placeText is "module / chapter · chunk i/n" of a chunk (1-based).
func placeText(c *retrieval.Chunk) string {
	var parts []string
	if c.Module != "" {
		parts = append(parts, c.Module)
	}
	if c.Chapter != "" {
		parts = append(parts, c.Chapter)
	}
	s := strings.Join(parts, " / ")
	if i, ok := c.Index(); ok {
		chunk := "chunk " + strconv.Itoa(i+1)
		if c.TotalChunks != nil {
			chunk += "/" + strconv.Itoa(*c.TotalChunks)
		}
		if s != "" {
			s += " · "
		}
		s += chunk
	}
	return termsafe.Line(s)
}

// dropLabel says why a hit was left out.
func dropLabel(d retrieval.DroppedHit, threshold float64) string {
	if d.Reason == retrieval.ReasonDuplicate {
		return fmt.Sprintf("duplicate of #%d", d.DuplicateOf)
	}
	return "below " + formatScore(threshold, 2)
}

// formatScore formats a score with prec decimals.
func formatScore(s float64, prec int) string {
	return strconv.FormatFloat(s, 'f', prec, 64)
}

// linkLabel is the short text of a link state.
func linkLabel(st LinkStatus) string {
	switch st.State {
	case LinkOK:
		return "✓ link ok"
	case LinkPageMissing:
		return "✗ page missing"
	case LinkAnchorMissing:
		return "✗ anchor missing"
	case LinkRedirected:
		return "→ redirected"
	case "":
		return ""
	}
	return "? link unknown"
}

// formatDuration prints d in milliseconds with one decimal.
func formatDuration(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

// timingsText lists the stages of a retrieval.
func timingsText(t retrieval.Timings, mode retrieval.Mode) string {
	if mode == retrieval.ModeSelectedText {
		return "no search · total " + formatDuration(t.Total)
	}
	return "embed " + formatDuration(t.Embed) + " · search " + formatDuration(t.Search) +
		" · post " + formatDuration(t.Post) + " · total " + formatDuration(t.Total)
}

// approxTokens estimates the tokens of text for an LLM: about four
// characters a token for English prose.
func approxTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// groupInt formats n with thousands separators.
func groupInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// filtersText is the active filters on one line, or "none".
func filtersText(f retrieval.Filters) string {
	if f.IsEmpty() {
		return "none"
	}
	return termsafe.Line(f.String())
}

// onOff prints a flag.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// errorText is the status-line message for err: the classified message
// the CLI prints too.
func errorText(err error) string { return retrieval.Describe(err) }

// wrapText wraps plain text to width cells, breaking long words.
func wrapText(s string, width int) string {
	if width < 1 {
		width = 1
	}
	return ansi.Wrap(s, width, "")
}

// fitLines clips s to at most h lines of at most w cells each.
func fitLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if h >= 0 && len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = truncate(l, w)
		}
	}
	return strings.Join(lines, "\n")
}

// box draws content in style at exactly w x h cells (border included),
// clipping what does not fit.
func box(style lipgloss.Style, w, h int, content string) string {
	fw, fh := style.GetFrameSize()
	iw, ih := max(w-fw, 0), max(h-fh, 0)
	content = fitLines(content, iw, ih)
	bw, bh := style.GetHorizontalBorderSize(), style.GetVerticalBorderSize()
	return style.Width(max(w-bw, 0)).Height(max(h-bh, 0)).MaxWidth(w).MaxHeight(h).Render(content)
}

// innerSize is the content area of a w x h box in style.
func innerSize(style lipgloss.Style, w, h int) (int, int) {
	fw, fh := style.GetFrameSize()
	return max(w-fw, 0), max(h-fh, 0)
}
