package keyhelp

import (
	"charm.land/bubbles/v2/key"

	"ragscope/ui/common"
)

// Keys is the help of the focused pane and the explorer's key map, for
// the short help line and the full help; help hides disabled bindings,
// so it never offers a letter while a text box has focus.
type Keys struct {
	KeyMap *common.KeyMap
	// Short is the focused pane's one-line help; Own its own bindings.
	Short []key.Binding
	Own   [][]key.Binding
}

// ShortHelp is the one-line help: the focused pane's.
func (h Keys) ShortHelp() []key.Binding { return h.Short }

// FullHelp is the focused pane's own bindings, then every binding of the
// key map, grouped.
func (h Keys) FullHelp() [][]key.Binding {
	k := h.KeyMap
	return append(append([][]key.Binding(nil), h.Own...),
		[]key.Binding{k.NextPane, k.PrevPane, k.Leave, k.FocusQuery, k.Context, k.Turns, k.Settings, k.Eval, k.Answer, k.Page, k.Chunks},
		[]key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Search, k.SearchNext},
		[]key.Binding{k.Run, k.RunAny, k.HistoryPrev, k.HistoryNext, k.ToggleMode, k.Dropped, k.Rerank, k.Expect, k.ANNCheck, k.Split, k.Explain, k.Edit},
		[]key.Binding{k.CopyURL, k.CopyContext, k.OpenURL, k.Dec, k.Inc, k.Toggle, k.Clear},
		[]key.Binding{k.Help, k.QuitQ, k.Quit},
	)
}
