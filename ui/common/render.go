package common

import (
	"context"
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
)

// ScoreBar draws score (0..1) as width cells: filled cells for the score,
// light shade for the rest. Scores outside 0..1 are clamped.
func ScoreBar(score float64, width int) (full, empty string) {
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

// Truncate cuts s (which may hold styles) to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// DropLabel says why a hit was left out (present.DropReason, the
// command line's wording).
func DropLabel(d retrieval.DroppedHit, threshold float64) string {
	return present.DropReason(d, threshold)
}

// LinkLabel is the short text of a link state.
func LinkLabel(st LinkStatus) string {
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

// ErrorText is the status-line message for err: the one classified
// message the CLI prints too (retrieval.Describe).
func ErrorText(err error) string { return retrieval.Describe(err) }

// WrapText wraps plain text to width cells, breaking long words.
func WrapText(s string, width int) string {
	if width < 1 {
		width = 1
	}
	return ansi.Wrap(s, width, "")
}

// FitLines clips s to at most h lines of at most w cells each.
func FitLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if h >= 0 && len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = Truncate(l, w)
		}
	}
	return strings.Join(lines, "\n")
}

// Box draws content in style at exactly w x h cells (border included),
// clipping what does not fit. The pane styles are a border and side
// padding: those are drawn here line by line, measuring each line once,
// which is several times faster than a general Render that wraps and
// aligns (the View budget is 2 ms with 100 results).
func Box(style lipgloss.Style, w, h int, content string) string {
	fw, fh := style.GetFrameSize()
	iw, ih := max(w-fw, 0), max(h-fh, 0)
	b := style.GetBorderStyle()
	pt, pr, pb, pl := style.GetPadding()
	if w < fw || h < fh || !style.GetBorderTop() || !style.GetBorderLeft() || !style.GetBorderRight() || !style.GetBorderBottom() || pt != 0 || pb != 0 {
		content = FitLines(content, iw, ih)
		// Lip Gloss v2 counts the border in Width and Height.
		return style.Width(w).Height(h).MaxWidth(w).MaxHeight(h).Render(content)
	}
	paint := lipgloss.NewStyle().Foreground(style.GetBorderTopForeground())
	left := paint.Render(b.Left) + strings.Repeat(" ", pl)
	right := strings.Repeat(" ", pr) + paint.Render(b.Right)
	var out strings.Builder
	out.Grow((w + 16) * h)
	out.WriteString(paint.Render(b.TopLeft + strings.Repeat(b.Top, w-2) + b.TopRight))
	rest := content
	for i := 0; i < ih; i++ {
		var line string
		if rest != "" || i == 0 {
			line, rest, _ = strings.Cut(rest, "\n")
		}
		lw := ansi.StringWidth(line)
		if lw > iw {
			line = Truncate(line, iw)
			lw = ansi.StringWidth(line)
		}
		out.WriteByte('\n')
		out.WriteString(left)
		out.WriteString(line)
		out.WriteString(strings.Repeat(" ", max(iw-lw, 0)))
		out.WriteString(right)
	}
	out.WriteByte('\n')
	out.WriteString(paint.Render(b.BottomLeft + strings.Repeat(b.Bottom, w-2) + b.BottomRight))
	return out.String()
}

// PadLines pads every line of s with spaces to width cells (lines are
// drawn no wider than the window).
func PadLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = l + strings.Repeat(" ", max(width-ansi.StringWidth(l), 0))
	}
	return strings.Join(lines, "\n")
}

// JoinCols sets two boxes side by side; both have the same height and
// every line of a box has the box's width.
func JoinCols(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) {
		return lipgloss.JoinHorizontal(lipgloss.Top, a, b)
	}
	var out strings.Builder
	out.Grow(len(a) + len(b))
	for i := range al {
		if i > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(al[i])
		out.WriteString(bl[i])
	}
	return out.String()
}

// InnerSize is the content area of a w x h box in style.
func InnerSize(style lipgloss.Style, w, h int) (int, int) {
	fw, fh := style.GetFrameSize()
	return max(w-fw, 0), max(h-fh, 0)
}

// WithTimeout derives a context with d as deadline (none when d <= 0).
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
