package present

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"ragscope/retrieval"
)

// SourceKey names a hit's source so that two setups' hits match whatever
// their chunking: the doc path and the section anchor, else the citation
// URL without its query, else the title and section; never the chunk id.
func SourceKey(h retrieval.Hit) string {
	doc := h.Chunk.DocPath
	if doc == "" {
		doc = h.Citation.DocPath
	}
	link := h.Citation.URL
	if link == "" {
		link = h.Chunk.URL
	}
	anchor := ""
	if i := strings.IndexByte(link, '#'); i >= 0 {
		anchor = link[i+1:]
	}
	if anchor == "" {
		anchor = h.Chunk.HeadingID
	}
	if doc != "" {
		k := path.Clean(strings.TrimPrefix(strings.ReplaceAll(doc, `\`, "/"), "./"))
		if anchor != "" {
			k += "#" + anchor
		}
		return k
	}
	if u, err := url.Parse(link); err == nil && link != "" {
		u.RawQuery = ""
		return u.String()
	}
	return Title(&h.Chunk)
}

// SourceMove is one source (SourceKey) across the rankings of several
// setups.
type SourceMove struct {
	// Source is the source's key, Title the title of its first hit.
	Source, Title string
	// Ranks are its best rank in each ranking (0: not retrieved).
	Ranks []int
	// Moves say, for each ranking after the first, how it moved against
	// the first (MoveMark).
	Moves []string
}

// SourceMoves lists every source the rankings retrieved, in the first
// ranking's order and then the others', with its best rank in each and
// its movement against the first; letters name the rankings in the marks
// ("only in A").
func SourceMoves(rankings [][]retrieval.Hit, letters []string) []SourceMove {
	index := map[string]int{}
	var out []SourceMove
	for i, hits := range rankings {
		for _, h := range hits {
			k := SourceKey(h)
			j, ok := index[k]
			if !ok {
				j = len(out)
				index[k] = j
				out = append(out, SourceMove{Source: k, Title: Title(&h.Chunk), Ranks: make([]int, len(rankings))})
			}
			if out[j].Ranks[i] == 0 {
				out[j].Ranks[i] = h.Rank
			}
		}
	}
	for j := range out {
		for i := 1; i < len(rankings); i++ {
			out[j].Moves = append(out[j].Moves, MoveMark(out[j].Ranks[0], out[j].Ranks[i], letters[0], letters[i]))
		}
	}
	return out
}

// MoveMark is how a source moved from rank ra (the first setup, letter a)
// to rank rb (letter b): ↑n, ↓n, =, only in a, only in b ("" when in
// neither).
func MoveMark(ra, rb int, a, b string) string {
	switch {
	case ra == 0 && rb == 0:
		return ""
	case rb == 0:
		return "only in " + a
	case ra == 0:
		return "only in " + b
	case rb < ra:
		return "↑" + strconv.Itoa(ra-rb)
	case rb > ra:
		return "↓" + strconv.Itoa(rb-ra)
	}
	return "="
}
