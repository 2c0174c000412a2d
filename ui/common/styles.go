package common

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"ragscope/links"
	"ragscope/retrieval"
)

// Styles holds every style the explorer draws with. Colours are picked for
// a light or a dark background; Bubble Tea downsamples them to what the
// terminal shows and drops them under NO_COLOR.
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
	// Match marks text found by a search (reverse video: it shows
	// without colours too).
	Match lipgloss.Style

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
	ProgressFill color.Color

	// Rows paints result rows: one Render per style, not per row.
	Rows RowInks

	// Small is the "window too small" message.
	Small lipgloss.Style

	// Glamour names the markdown theme for chunk text, after Glamour's
	// standard styles ("dark", "light" or "notty" when there is no colour;
	// see markdown.go).
	Glamour string
	// Dark says whether the styles are for a dark background.
	Dark bool
	// Profile is the terminal's colour profile.
	Profile colorprofile.Profile
}

// DefaultStyles returns the explorer's styles. dark says whether the
// terminal background is dark (it picks the colours and the markdown
// theme); profile is the terminal's colour profile (without colour the
// markdown theme is the plain one).
func DefaultStyles(dark bool, profile colorprofile.Profile) *Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	var (
		accent = c("#5A3FC0", "#A48BFF")
		dim    = c("#9A9A9A", "#5C5C5C")
		faint  = c("#767676", "#8A8A8A")
		text   = c("#1A1A1A", "#E4E4E4")
		link   = c("#0B63B6", "#6CB6FF")
		good   = c("#1E7F34", "#5FD37A")
		bad    = c("#B3261E", "#FF6B6B")
		warn   = c("#9A6700", "#E3B341")
		selBg  = c("#ECE8FB", "#2B2540")
	)
	s := &Styles{Dark: dark, Profile: profile}
	border := lipgloss.RoundedBorder()
	s.Pane = lipgloss.NewStyle().Border(border).BorderForeground(dim).Padding(0, 1)
	s.FocusedPane = s.Pane.BorderForeground(accent)
	if !HasColor(profile) {
		// Without colours the focused pane's border is drawn heavy: a text
		// cue of the same size, so nothing moves when focus changes.
		s.FocusedPane = s.FocusedPane.Border(lipgloss.ThickBorder())
	}
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
	s.Match = lipgloss.NewStyle().Reverse(true)

	s.Status = lipgloss.NewStyle().Foreground(faint)
	s.StatusErr = lipgloss.NewStyle().Foreground(bad).Bold(true)
	s.StatusOK = lipgloss.NewStyle().Foreground(good)
	s.Spinner = lipgloss.NewStyle().Foreground(accent)
	s.Small = lipgloss.NewStyle().Foreground(warn).Bold(true)

	s.Pass = lipgloss.NewStyle().Foreground(good).Bold(true)
	s.Miss = lipgloss.NewStyle().Foreground(warn).Bold(true)
	s.Fail = lipgloss.NewStyle().Foreground(bad).Bold(true)
	s.ProgressFill = accent
	s.Rows = rowInksOf(s)
	s.Glamour = glamourStyle(dark, profile)
	return s
}

// rowInksOf are s's result-row styles as inks.
func rowInksOf(s *Styles) RowInks {
	return RowInks{
		Cursor: InkOf(s.Cursor), Dropped: InkOf(s.Dropped), Rank: InkOf(s.Rank), Score: InkOf(s.Score),
		BarFull: InkOf(s.BarFull), BarEmpty: InkOf(s.BarEmpty), Title: InkOf(s.Title), Highlight: InkOf(s.Highlight),
		Meta: InkOf(s.Meta), URL: InkOf(s.URL), Match: InkOf(s.Match), LinkOK: InkOf(s.LinkOK), LinkBad: InkOf(s.LinkBad), linkWarn: InkOf(s.LinkWarn),
	}
}

// glamourStyle names the Markdown theme for the background and profile:
// "notty" without colour, else "dark" or "light".
func glamourStyle(dark bool, profile colorprofile.Profile) string {
	switch {
	case !HasColor(profile):
		return "notty"
	case dark:
		return "dark"
	}
	return "light"
}

// Frame returns the border and title styles of a pane, focused or not;
// both borders have the same size, so focus never moves anything.
func (s *Styles) Frame(focus bool) (lipgloss.Style, lipgloss.Style) {
	if focus {
		return s.FocusedPane, s.FocusedTitle
	}
	return s.Pane, s.PaneTitle
}

// HasColor reports whether a terminal with profile shows colours.
func HasColor(profile colorprofile.Profile) bool {
	return profile != colorprofile.Ascii && profile != colorprofile.NoTTY
}

// TextInput returns the styles of a one-line input: placeholder dim, text
// plain, the same focused or not.
func (s *Styles) TextInput() textinput.Styles {
	t := textinput.DefaultStyles(s.Dark)
	for _, st := range []*textinput.StyleState{&t.Focused, &t.Blurred} {
		st.Placeholder = s.Missing
		st.Text = s.Value
	}
	// Without colours a blinking cursor is invisible half the time: keep
	// the reverse-video block steady.
	t.Cursor.Blink = HasColor(s.Profile)
	return t
}

// NewInput returns a one-line text box of the explorer: no prompt, the
// placeholder dim (textInput), at most limit characters.
func (s *Styles) NewInput(placeholder string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetStyles(s.TextInput())
	in.CharLimit = limit
	return in
}

// TextArea returns the styles of the selection box: no cursor-line
// highlight, and a prompt bar that shows focus.
func (s *Styles) TextArea() textarea.Styles {
	t := textarea.DefaultStyles(s.Dark)
	t.Focused.CursorLine = lipgloss.NewStyle()
	t.Focused.Placeholder = s.Missing
	t.Blurred.Placeholder = s.Missing
	t.Focused.Prompt = s.Cursor
	t.Blurred.Prompt = s.Rule
	t.Cursor.Blink = HasColor(s.Profile)
	return t
}

// Ink is a text style's opening and closing sequences, to paint many
// short strings at the cost of a concatenation each; only for styles that
// set colours and attributes, not sizes, padding or borders.
type Ink struct{ pre, suf string }

// InkOf measures style's sequences around a placeholder.
func InkOf(style lipgloss.Style) Ink {
	r := style.Render("X")
	i := strings.IndexByte(r, 'X')
	if i < 0 {
		return Ink{}
	}
	return Ink{pre: r[:i], suf: r[i+1:]}
}

// Paint styles s, one line, as Render would.
func (k Ink) Paint(s string) string { return k.pre + s + k.suf }

// RowInks are the result list's styles as inks.
type RowInks struct {
	Cursor, Dropped, Rank, Score, BarFull, BarEmpty, Title, Highlight, Meta, URL, Match Ink
	LinkOK, LinkBad, linkWarn                                                           Ink
}

// Link is the ink of a link state: good, broken, doubtful.
func (r *RowInks) Link(state links.Status) Ink {
	switch state {
	case LinkOK:
		return r.LinkOK
	case LinkPageMissing, LinkAnchorMissing:
		return r.LinkBad
	case LinkRedirected, LinkUnknown:
		return r.linkWarn
	}
	return r.Meta
}

// MoveInk is the colour of a movement: up and new in green, down in red.
func (st *Styles) MoveInk(m retrieval.Movement) Ink {
	switch m.Kind {
	case retrieval.MoveUp, retrieval.MoveNew:
		return InkOf(st.Added)
	case retrieval.MoveDown:
		return InkOf(st.Removed)
	}
	return st.Rows.Meta
}
