package results

import (
	"ragscope/ui/common"
)

// FindMatch moves the cursor to the next matching row in dir, wrapping;
// it returns the match's place among the matches and their count.
func (p *Model) FindMatch(dir int, from bool) (int, int) {
	var hits []int
	for i := range p.Items {
		if p.Items[i].Matches(p.Search) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return -1, 0
	}
	at := common.PickMatch(hits, p.Cursor, dir, from)
	if hits[at] != p.Cursor {
		p.Cursor = hits[at]
		p.ScrollToCursor()
	}
	return at, len(hits)
}

// RowAt is the item drawn at line y of the list's rows (-1: none).
func (p *Model) RowAt(y int) int {
	if y < 0 || y >= p.PageRows()*itemLines {
		return -1
	}
	i := p.offset + y/itemLines
	if i >= len(p.Items) {
		return -1
	}
	return i
}
