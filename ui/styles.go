package ui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles holds every style the explorer draws with. Colours are adaptive
// (light and dark terminals); lipgloss drops them under NO_COLOR or on a
// terminal without colour.
type Styles struct {
	// Pane and FocusedPane frame the panes; both have the same border so
	// nothing moves when focus changes.
	Pane        lipgloss.Style
	FocusedPane lipgloss.Style
	// PaneTitle and FocusedTitle head a pane.
	PaneTitle    lipgloss.Style
	FocusedTitle lipgloss.Style

	// Header styles: the app name, the backend line and the settings line.
	AppName  lipgloss.Style
	Header   lipgloss.Style
	Settings lipgloss.Style
	Mode     lipgloss.Style

	// Result list.
	Rank      lipgloss.Style
	Score     lipgloss.Style
	BarFull   lipgloss.Style
	BarEmpty  lipgloss.Style
	Title     lipgloss.Style
	Meta      lipgloss.Style
	URL       lipgloss.Style
	Selected  lipgloss.Style
	Cursor    lipgloss.Style
	Dropped   lipgloss.Style
	LinkOK    lipgloss.Style
	LinkBad   lipgloss.Style
	LinkWarn  lipgloss.Style
	Label     lipgloss.Style
	Value     lipgloss.Style
	Missing   lipgloss.Style
	Rule      lipgloss.Style
	Section   lipgloss.Style
	Added     lipgloss.Style
	Removed   lipgloss.Style
	Code      lipgloss.Style
	Highlight lipgloss.Style

	// Status line.
	Status    lipgloss.Style
	StatusErr lipgloss.Style
	StatusOK  lipgloss.Style
	Spinner   lipgloss.Style

	// Eval case outcomes.
	Pass lipgloss.Style
	Miss lipgloss.Style
	Fail lipgloss.Style
	// ProgressFill is the colour of the eval progress bar's filled part
	// (bubbles/progress takes a colour, not a style).
	ProgressFill string

	// Small is the "window too small" message.
	Small lipgloss.Style

	// Glamour names the glamour style for chunk text ("dark", "light" or
	// "notty" when there is no colour).
	Glamour string
	// Profile is the colour profile glamour renders with.
	Profile termenv.Profile
}

// DefaultStyles returns the explorer's styles. dark says whether the
// terminal background is dark (it picks the markdown theme; lipgloss
// resolves adaptive colours itself); profile is the colour profile.
func DefaultStyles(dark bool, profile termenv.Profile) *Styles {
	var (
		accent = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#A48BFF"}
		dim    = lipgloss.AdaptiveColor{Light: "#9A9A9A", Dark: "#5C5C5C"}
		faint  = lipgloss.AdaptiveColor{Light: "#767676", Dark: "#8A8A8A"}
		text   = lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#E4E4E4"}
		link   = lipgloss.AdaptiveColor{Light: "#0B63B6", Dark: "#6CB6FF"}
		good   = lipgloss.AdaptiveColor{Light: "#1E7F34", Dark: "#5FD37A"}
		bad    = lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"}
		warn   = lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#E3B341"}
		selBg  = lipgloss.AdaptiveColor{Light: "#ECE8FB", Dark: "#2B2540"}
	)
	s := &Styles{Profile: profile}
	border := lipgloss.RoundedBorder()
	s.Pane = lipgloss.NewStyle().Border(border).BorderForeground(dim).Padding(0, 1)
	s.FocusedPane = s.Pane.BorderForeground(accent)
	s.PaneTitle = lipgloss.NewStyle().Foreground(faint).Bold(true)
	s.FocusedTitle = lipgloss.NewStyle().Foreground(accent).Bold(true)

	s.AppName = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Header = lipgloss.NewStyle().Foreground(text)
	s.Settings = lipgloss.NewStyle().Foreground(faint)
	s.Mode = lipgloss.NewStyle().Foreground(warn).Bold(true)

	s.Rank = lipgloss.NewStyle().Foreground(faint)
	s.Score = lipgloss.NewStyle().Foreground(text).Bold(true)
	s.BarFull = lipgloss.NewStyle().Foreground(accent)
	s.BarEmpty = lipgloss.NewStyle().Foreground(dim)
	s.Title = lipgloss.NewStyle().Foreground(text).Bold(true)
	s.Meta = lipgloss.NewStyle().Foreground(faint)
	s.URL = lipgloss.NewStyle().Foreground(link)
	s.Selected = lipgloss.NewStyle().Background(selBg)
	s.Cursor = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Dropped = lipgloss.NewStyle().Foreground(dim)
	s.LinkOK = lipgloss.NewStyle().Foreground(good)
	s.LinkBad = lipgloss.NewStyle().Foreground(bad)
	s.LinkWarn = lipgloss.NewStyle().Foreground(warn)
	s.Label = lipgloss.NewStyle().Foreground(faint)
	s.Value = lipgloss.NewStyle().Foreground(text)
	s.Missing = lipgloss.NewStyle().Foreground(dim).Italic(true)
	s.Rule = lipgloss.NewStyle().Foreground(dim)
	s.Section = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Added = lipgloss.NewStyle().Foreground(good)
	s.Removed = lipgloss.NewStyle().Foreground(bad)
	s.Code = lipgloss.NewStyle().Foreground(text)
	s.Highlight = lipgloss.NewStyle().Foreground(accent).Bold(true)

	s.Status = lipgloss.NewStyle().Foreground(faint)
	s.StatusErr = lipgloss.NewStyle().Foreground(bad).Bold(true)
	s.StatusOK = lipgloss.NewStyle().Foreground(good)
	s.Spinner = lipgloss.NewStyle().Foreground(accent)
	s.Small = lipgloss.NewStyle().Foreground(warn).Bold(true)

	s.Pass = lipgloss.NewStyle().Foreground(good).Bold(true)
	s.Miss = lipgloss.NewStyle().Foreground(warn).Bold(true)
	s.Fail = lipgloss.NewStyle().Foreground(bad).Bold(true)
	s.ProgressFill = accent.Light
	if dark {
		s.ProgressFill = accent.Dark
	}

	switch {
	case profile == termenv.Ascii:
		s.Glamour = "notty"
	case dark:
		s.Glamour = "dark"
	default:
		s.Glamour = "light"
	}
	return s
}

// pane returns the border and title styles of a pane, focused or not;
// both borders have the same size, so focus never moves anything.
func (s *Styles) pane(focus bool) (lipgloss.Style, lipgloss.Style) {
	if focus {
		return s.FocusedPane, s.FocusedTitle
	}
	return s.Pane, s.PaneTitle
}
