// Package header is the explorer's two header lines: the backend (its
// kind, setup, collection, model or search, and point count, fitted to
// the width by what each field is read for) and the settings the next
// search uses.
package header

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Backend describes the backend for the header.
type Backend struct {
	// Kind is "demo", "local" or "qdrant".
	Kind string
	// Label is a human description of the backend.
	Label string
	// Collection is the collection or index name.
	Collection string
	// Model is the embedding model's name.
	Model string
	// Points is the number of chunks, or -1 when unknown.
	Points int64
	// Setup is the named setup of ragscope.toml (--setup), "" for none.
	Setup string
	// Search says how the backend searches when it is not a plain dense
	// search, e.g. "hybrid: dense (embed-english-v3.0) + bm25
	// (qdrant/bm25), RRF k=2"; the collection's stats (Stats.Search)
	// set it once they arrive.
	Search string
}

// Info is what the header shows.
type Info struct {
	Backend Backend
	// SearchMode is how the index ranks now ("" on a backend without
	// modes: Backend.Search or the model says it).
	SearchMode string
	// Mode is the explorer's mode; Params are the next search's settings.
	Mode   retrieval.Mode
	Params retrieval.Query
	// Rerank is the rerank model's label, "" when reranking is not
	// offered; Params.Rerank.On says whether it is on.
	Rerank string
	// ShowDropped says the hits left out are shown.
	ShowDropped bool
}

// View is the backend line and the settings line, width cells wide.
func View(st *common.Styles, in Info, width int) string {
	b := in.Backend
	kind := b.Kind
	if kind == "" {
		kind = "backend"
	}
	parts := []part{{text: kind, keep: keepKind}}
	if b.Setup != "" {
		parts = append(parts, part{text: "setup " + termsafe.Line(b.Setup), keep: keepSetup})
	}
	if b.Collection != "" {
		name := termsafe.Line(b.Collection)
		parts = append(parts, part{text: "collection " + name, keep: keepCollection, shorter: []shortForm{{shortName, func(w int) string {
			return "collection " + present.Middle(name, max(w-len("collection "), headerMinName))
		}}}})
	}
	search := termsafe.Line(b.Search)
	if b.Model != "" && search == "" {
		parts = append(parts, part{text: termsafe.Line(b.Model), keep: keepModel})
	}
	switch {
	case in.SearchMode != "":
		parts = append(parts, part{text: in.SearchMode, keep: keepSearch})
	case search != "":
		// A hybrid search names the embedding model on its dense arm, in
		// place of the model field; cut rather than dropped, it still
		// says how the collection is searched.
		parts = append(parts, part{text: search, keep: keepSearch, cut: true, shorter: []shortForm{
			{shortModels, func(int) string { return withoutModels(search) }},
			{shortArms, func(int) string { return fusionOnly(search) }},
		}})
	}
	var points string
	if b.Points >= 0 {
		points = present.Int(int(b.Points)) + " " + present.Plural(int(b.Points), "point", "points")
	}
	line1 := st.AppName.Render("ragscope") + " " + st.Header.Render(fit(parts, points, width-len("ragscope ")))
	return common.Truncate(line1, width) + "\n" + common.Truncate(settingsLine(st, in), width)
}

// settingsLine is the mode and the settings the next search uses.
func settingsLine(st *common.Styles, in Info) string {
	mode := st.Settings.Render("mode ") + st.Header.Render("normal")
	if in.Mode == retrieval.ModeSelectedText {
		mode = st.Mode.Render("SELECTED TEXT · no vector search")
	}
	p := in.Params
	rerank := ""
	switch {
	case in.Rerank == "":
	case !p.Rerank.On:
		rerank = " · rerank off"
	default:
		rerank = " · " + in.Rerank
	}
	line := mode + st.Settings.Render(" · top_k "+strconv.Itoa(p.TopK)+" · threshold "+present.Score(p.Threshold, 2)+
		" · dedup "+present.OnOff(!p.NoDedup)+" · filters "+present.Filters(p.Filters)+rerank)
	if in.ShowDropped {
		line += st.Settings.Render(" · left-out shown")
	}
	return line
}

// headerMinPart is the fewest cells the first part after the backend kind
// is cut to when it does not fit whole.
const headerMinPart = 12

// headerMinName is the fewest cells a collection's name is shortened to
// (its start and end, the middle cut out).
const headerMinName = 12

// part is a field of the header line; keep ranks it: when the line
// is too long, fields of lower keep give way first, whole.
type part struct {
	text string
	keep int
	// cut lets the field be cut to the room left (at least
	// headerMinPart cells) rather than dropped.
	cut bool
	// shorter are the field's shorter forms that still say what it is
	// read for; fit tries them, in their steps' order, before it drops or
	// cuts any field.
	shorter []shortForm
}

// shortForm is a shorter form of a field: at step (the forms of every
// field are tried in the order of their steps), form gives the field in
// about w cells when it can.
type shortForm struct {
	step int
	form func(w int) string
}

// The steps that shorten the header's fields, in order: the search's
// model names go first, then the middle of the collection's name, then
// the search's arms, so the fusion stays on screen longest.
const (
	shortModels = iota
	shortName
	shortArms
)

// The header's fields by what they are read for: the backend kind always,
// then the setup (which of two is on show), the collection, the search
// mode and the embedding model.
const (
	keepModel = iota + 1
	keepSearch
	keepCollection
	keepSetup
	keepKind
)

// fit joins parts, in their order, and then last (the point count,
// "" for none) with " · " in at most w cells. last and the first part (the
// backend kind) stay. A line too long first has its fields shortened
// where they have a shorter form (the search's model names go, then the
// middle of the collection's name, then the search's arms), so the facts
// at the end of a field (a hybrid's fusion) stay on screen. Then
// the other parts are taken whole, by keep (highest first), while they
// fit, so a field is shown whole or not at all. Only the field of
// highest keep is cut (to what is left, at least headerMinPart cells)
// rather than dropped when it alone does not fit.
func fit(parts []part, last string, w int) string {
	const sep = 3 // " · "
	parts = shortened(parts, last, w)
	used := 0
	if len(parts) > 0 {
		used = ansi.StringWidth(parts[0].text)
	}
	if last != "" {
		used += sep + ansi.StringWidth(last)
	}
	order := make([]int, 0, len(parts))
	for i := 1; i < len(parts); i++ {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return parts[b].keep - parts[a].keep })
	text := make([]string, len(parts))
	if len(parts) > 0 {
		text[0] = parts[0].text
	}
	for n, i := range order {
		pw := ansi.StringWidth(parts[i].text)
		switch room := w - used - sep; {
		case pw <= room:
			text[i] = parts[i].text
		case (n == 0 || parts[i].cut) && room >= headerMinPart:
			text[i] = common.Truncate(parts[i].text, room)
		default:
			continue
		}
		used += sep + ansi.StringWidth(text[i])
	}
	var out []string
	for _, t := range text {
		if t != "" {
			out = append(out, t)
		}
	}
	if last != "" {
		out = append(out, last)
	}
	return common.Truncate(strings.Join(out, " · "), w)
}

// shortened is parts with fields put in their shorter forms, step by
// step (see shortForm), while the line (parts and last, joined by " · ")
// is wider than w cells; fields read less than every field with a
// shorter form are left out whole before any is shortened. The first
// part (the backend kind) stays.
func shortened(parts []part, last string, w int) []part {
	over := -w - 3
	for _, p := range parts {
		over += ansi.StringWidth(p.text) + 3
	}
	if last != "" {
		over += ansi.StringWidth(last) + 3
	}
	if over <= 0 {
		return parts
	}
	// Fields read less than any field with a shorter form (the model
	// beside a search mode) give way whole first, least read first.
	least := 0
	for _, p := range parts[1:] {
		if len(p.shorter) > 0 && (least == 0 || p.keep < least) {
			least = p.keep
		}
	}
	out := slices.Clone(parts)
	for over > 0 {
		drop := -1
		for i := 1; i < len(out); i++ {
			if len(out[i].shorter) == 0 && out[i].keep < least && (drop < 0 || out[i].keep < out[drop].keep) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		over -= ansi.StringWidth(out[drop].text) + 3
		out = slices.Delete(out, drop, drop+1)
	}
	type form struct {
		i int
		shortForm
	}
	var forms []form
	for i := 1; i < len(out); i++ {
		for _, f := range out[i].shorter {
			forms = append(forms, form{i, f})
		}
	}
	slices.SortStableFunc(forms, func(a, b form) int { return a.step - b.step })
	applied := forms[:0]
	for _, f := range forms {
		if over <= 0 {
			break
		}
		pw := ansi.StringWidth(out[f.i].text)
		if s := f.form(pw - over); ansi.StringWidth(s) < pw {
			out[f.i].text = s
			over -= pw - ansi.StringWidth(s)
			applied = append(applied, f)
		}
	}
	// A later step may leave room an earlier one took: the forms that
	// fit a width (the collection's name) get it back, latest first.
	for k := len(applied) - 1; k >= 0 && over < 0; k-- {
		f := applied[k]
		pw := ansi.StringWidth(out[f.i].text)
		if s := f.form(pw - over); ansi.StringWidth(s) > pw && ansi.StringWidth(s) <= pw-over {
			out[f.i].text = s
			over += ansi.StringWidth(s) - pw
		}
	}
	return out
}

// withoutModels is a search's description without the models named in
// parentheses after its arms: "hybrid: dense (embed-english-v3.0) + bm25
// (qdrant/bm25), RRF k=2" is "hybrid: dense + bm25, RRF k=2".
func withoutModels(search string) string {
	var b strings.Builder
	for {
		i := strings.Index(search, " (")
		if i < 0 {
			break
		}
		j := strings.IndexByte(search[i:], ')')
		if j < 0 {
			break
		}
		b.WriteString(search[:i])
		search = search[i+j+1:]
	}
	b.WriteString(search)
	return b.String()
}

// fusionOnly is a search's description without its arms: "hybrid: dense
// + bm25, RRF k=2" is "hybrid, RRF k=2"; one without a fusion after its
// arms is left as it is.
func fusionOnly(search string) string {
	kind, _, ok := strings.Cut(search, ": ")
	i := strings.LastIndex(search, ", ")
	if !ok || i < len(kind) {
		return search
	}
	return kind + search[i:]
}
