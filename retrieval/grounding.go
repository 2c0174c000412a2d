package retrieval

import (
	"sort"
	"strconv"
	"strings"
)

// The grounding policy's system instructions, word for word what the
// answering agent sends its model; changing them changes the agent's answers.
const (
	// InstructionNormal grounds an answer on retrieved excerpts.
	InstructionNormal = "Answer based on the following textbook excerpts. Cite the source for each fact. If the excerpts don't contain enough information, explicitly state that."
	// InstructionSelectedText grounds an answer on the user's selection only.
	InstructionSelectedText = "Answer ONLY from the following selected text. Do not use any other knowledge. If the text does not contain enough information to answer, say so."
	// InstructionRefusal is given when nothing relevant was retrieved.
	InstructionRefusal = "No relevant textbook content was found for this question. Tell the user that the textbook does not cover it, and do not answer from other knowledge."
)

// Ground applies the grounding policy to normal-mode hits: no hits gives
// the refusal instruction and an empty context; otherwise the context holds
// every hit under a "[Source N: title - section]" marker, sources (documents)
// ordered by their best score and the chunks of one document in reading
// order.
func Ground(hits []Hit) Grounded {
	if len(hits) == 0 {
		return Grounded{Sufficient: false, Instruction: InstructionRefusal, Context: "", Sources: []Citation{}}
	}
	ordered := ContextOrder(hits)
	sources := make([]Citation, 0, len(ordered))
	for _, h := range ordered {
		sources = append(sources, h.Citation)
	}
	return Grounded{
		Sufficient:  true,
		Instruction: InstructionNormal,
		Context:     RenderContext(ordered, SourceMarker),
		Sources:     sources,
	}
}

// RenderContext writes hits, already in context order, each under the
// line marker(n, hit) gives it (n counts from 1), as Ground lays out the
// context. With SourceMarker it is the context the model gets; another
// marker function draws the same text for people (with each source's
// rank, say).
func RenderContext(ordered []Hit, marker func(n int, h Hit) string) string {
	var b strings.Builder
	for i, h := range ordered {
		b.WriteString(marker(i+1, h))
		b.WriteByte('\n')
		b.WriteString(strings.TrimSpace(h.Chunk.Text))
		b.WriteString("\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// SourceMarker is the context marker of the n-th source.
func SourceMarker(n int, h Hit) string {
	title := h.Chunk.Title
	if title == "" {
		title = h.Chunk.DocPath
	}
	if title == "" {
		title = "Untitled"
	}
	if h.Chunk.Section == "" {
		return "[Source " + strconv.Itoa(n) + ": " + title + "]"
	}
	return "[Source " + strconv.Itoa(n) + ": " + title + " - " + h.Chunk.Section + "]"
}

// ContextOrder returns hits in context order: documents by their best
// score (hits are ranked, so by their first hit), then each document's
// chunks in reading order (chunk index, then rank when unknown).
func ContextOrder(hits []Hit) []Hit {
	docRank := map[string]int{}
	for _, h := range hits {
		k := docKey(&h.Chunk)
		if _, ok := docRank[k]; !ok {
			docRank[k] = h.Rank
		}
	}
	out := append([]Hit(nil), hits...)
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := docRank[docKey(&out[i].Chunk)], docRank[docKey(&out[j].Chunk)]
		if di != dj {
			return di < dj
		}
		ii, iok := out[i].Chunk.Index()
		ij, jok := out[j].Chunk.Index()
		if iok && jok && ii != ij {
			return ii < ij
		}
		return out[i].Rank < out[j].Rank
	})
	return out
}

// docKey identifies the document a chunk belongs to.
func docKey(c *Chunk) string {
	switch {
	case c.DocPath != "":
		return "p:" + c.DocPath
	case c.URL != "":
		u := c.URL
		if i := strings.IndexByte(u, '#'); i >= 0 {
			u = u[:i]
		}
		return "u:" + u
	case c.Title != "":
		return "t:" + c.Title
	}
	return "id:" + c.ID
}
