package local

import (
	"strings"

	"ragscope/internal/lazyre"
)

// parts cuts the block into texts of at most budget units of z: the whole
// block when it fits, else parts of near-equal size cut between lines (a
// paragraph: between sentences; a list: between items, then lines; an
// admonition: between its inner blocks). Each part of a fence is a fence
// with the block's opening line and a closing one, each part of an
// admonition is an admonition, each part of a table repeats its header.
// The lead goes on the first part and the trail on the last.
func (b block) parts(budget int, z sizer) []string {
	whole := b.text()
	if z.size(whole) <= budget {
		return []string{whole}
	}
	// Lead and trail come out of every part's budget: simple, and they
	// are a heading line or two.
	room := budget
	if b.lead != "" {
		room -= z.size(b.lead) + 2
	}
	if b.trail != "" {
		room -= z.size(b.trail) + 2
	}
	room = max(room, budget/2)
	out := b.split(room, z)
	out[0] = joinParas(b.lead, out[0])
	out[len(out)-1] = joinParas(out[len(out)-1], b.trail)
	return out
}

// split cuts the block's body into parts of at most room units.
func (b block) split(room int, z sizer) []string {
	texts := lineTexts(b.lines)
	switch b.kind {
	case kindFence:
		open, body, close := texts[0], texts[1:], closingFence(texts[0])
		if len(b.lines) > 1 && b.lines[len(b.lines)-1].fence && !b.lines[len(b.lines)-1].open {
			body, close = texts[1:len(texts)-1], texts[len(texts)-1]
		}
		return wrapParts(open, close, body, "\n", room, z)
	case kindTable:
		return wrapParts(texts[0]+"\n"+texts[1], "", texts[2:], "\n", room, z)
	case kindAdmonition:
		open, inner, close := texts[0], b.lines[1:], ""
		if n := len(b.lines); n > 1 && admonitionClose.MatchString(texts[n-1]) {
			inner, close = b.lines[1:n-1], texts[n-1]
		}
		inside, orphan := attachHeadings(scanBlocks(inner))
		overhead := z.size(open) + z.size(close) + 2
		var units []string
		for _, ib := range inside {
			units = append(units, ib.parts(max(room-overhead, room/2), z)...)
		}
		if orphan != "" || len(units) == 0 {
			return splitUnits(texts, "\n", room, z)
		}
		return wrapParts(open, close, units, "\n\n", room, z)
	case kindList:
		items, sep := listItems(b.lines)
		var units []string
		for _, it := range items {
			t := strings.Join(it, "\n")
			if z.size(t) <= room {
				units = append(units, t)
				continue
			}
			units = append(units, splitUnits(it, "\n", room, z)...)
		}
		return packUnits(units, sep, room, z)
	case kindPara:
		return packUnits(sentences(strings.Join(texts, "\n"), room, z), " ", room, z)
	}
	return splitUnits(texts, "\n", room, z)
}

// wrapParts packs units into parts of at most room units each, every part
// between open and close lines (close "" for none).
func wrapParts(open, close string, units []string, sep string, room int, z sizer) []string {
	overhead := z.size(open) + 1
	if close != "" {
		overhead += z.size(close) + 1
	}
	parts := splitUnits(units, sep, max(room-overhead, room/2), z)
	for i, p := range parts {
		parts[i] = open + "\n" + p
		if close != "" {
			parts[i] += "\n" + close
		}
	}
	return parts
}

// splitUnits packs units into parts of at most room units, a unit too
// long by itself cut at spaces first.
func splitUnits(units []string, sep string, room int, z sizer) []string {
	var fit []string
	for _, u := range units {
		if z.size(u) > room {
			fit = append(fit, z.hardSplit(u, room)...)
			continue
		}
		fit = append(fit, u)
	}
	return packUnits(fit, sep, room, z)
}

// closingFence is the delimiter that closes the fence opened by open.
func closingFence(open string) string {
	s := strings.TrimLeft(open, " \t")
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[:n]
}

func lineTexts(ls []line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

// listItems cuts a list's lines into its items (at the markers indented
// as the first), each without trailing blank lines; sep is "\n\n" when
// the items were apart (a loose list), else "\n".
func listItems(ls []line) ([][]string, string) {
	indent := len(listItem.FindStringSubmatch(ls[0].text)[1])
	var items [][]string
	sep := "\n"
	for i, l := range ls {
		if m := listItem.FindStringSubmatch(l.text); i == 0 || (m != nil && !l.inFence && len(m[1]) == indent) {
			if i > 0 && blank(ls[i-1]) {
				sep = "\n\n"
			}
			items = append(items, nil)
		}
		items[len(items)-1] = append(items[len(items)-1], l.text)
	}
	for i, it := range items {
		for len(it) > 0 && strings.TrimSpace(it[len(it)-1]) == "" {
			it = it[:len(it)-1]
		}
		items[i] = it
	}
	return items, sep
}

var sentenceEnd = lazyre.New(`[.!?…]["'”’)\]]*\s+`)

// sentences cuts prose into its sentences, a sentence longer than room
// cut at spaces.
func sentences(text string, room int, z sizer) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if z.size(s) > room {
			out = append(out, z.hardSplit(s, room)...)
			return
		}
		out = append(out, s)
	}
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		add(text[last:m[1]])
		last = m[1]
	}
	add(text[last:])
	return out
}

// packUnits joins units (none longer than room) with sep into as few
// parts of at most room units as greedy packing gives, sized near-equal:
// the smallest bound that still gives that many parts, then each part
// cut near an even share of what is left.
func packUnits(units []string, sep string, room int, z sizer) []string {
	if len(units) == 0 {
		return nil
	}
	sizes := make([]int, len(units))
	for i, u := range units {
		sizes[i] = z.size(u)
	}
	sepN := z.size(sep)
	if z.words {
		sepN = 0
	}
	starts := balance(sizes, sepN, room)
	out := make([]string, len(starts))
	for k, s := range starts {
		e := len(units)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		out[k] = strings.Join(units[s:e], sep)
	}
	return out
}

// balance returns the start index of each part when items of sizes, sep
// apart, are packed in order into parts of at most limit (an item larger
// than limit alone in its part): the fewest parts, of near-equal size.
func balance(sizes []int, sep, limit int) []int {
	n := len(greedyStarts(sizes, sep, limit))
	if n <= 1 {
		return []int{0}
	}
	lo, total := 0, 0
	for _, s := range sizes {
		lo = max(lo, s)
		total += s + sep
	}
	total -= sep
	hi := max(limit, lo)
	for lo < hi {
		mid := (lo + hi) / 2
		if len(greedyStarts(sizes, sep, mid)) <= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	bound := lo
	// Cut each part near an even share of what is left, within bound.
	starts := []int{0}
	cur, left := 0, total
	target := float64(total) / float64(n)
	for i, s := range sizes {
		add := s
		if cur > 0 {
			add += sep
		}
		if cur > 0 && (cur+add > bound || (len(starts) < n && float64(cur)+float64(add)/2 > target)) {
			left -= cur + sep
			starts = append(starts, i)
			target = float64(left) / float64(n-len(starts)+1)
			cur, add = 0, s
		}
		cur += add
	}
	if len(starts) > n {
		return greedyStarts(sizes, sep, bound)
	}
	return starts
}

// greedyStarts packs greedily: each part takes items while they fit.
func greedyStarts(sizes []int, sep, limit int) []int {
	starts := []int{0}
	cur := 0
	for i, s := range sizes {
		if cur > 0 && cur+sep+s > limit {
			starts = append(starts, i)
			cur = 0
		}
		if cur > 0 {
			cur += sep
		}
		cur += s
	}
	return starts
}
