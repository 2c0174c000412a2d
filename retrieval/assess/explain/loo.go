package explain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"ragscope/internal/lazyre"
	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// MaxVariants bounds the question's leave-one-out variants: with the
// question itself they fit one embedding call of every provider (96
// texts, Cohere's limit).
const MaxVariants = 95

// Variant is the question with one of its words left out.
type Variant struct {
	// Word is the question word (an index term) left out.
	Word string
	// Text is the question without it.
	Text string
}

// Attribution is a question word's share of a chunk's score: the score
// with the whole question minus the score with the word left out.
type Attribution struct {
	Word  string  `json:"word"`
	Delta float64 `json:"delta"`
}

var rawWord = lazyre.New(`[\p{L}\p{N}]+`)

// Variants returns the question with each of its content words left out
// (every occurrence, and a lone digit joined to it: "ROS 2"), one variant
// per distinct text; a variant left with no content word is skipped, and
// note says so when that leaves none ("a one-word question has no word to
// leave out").
func Variants(question string) (vs []Variant, note string) {
	terms := QuestionTerms(question)
	locs := rawWord.FindAllStringIndex(question, -1)
	// wordTerms[k] is the terms raw word k makes, alone or joined to a
	// lone digit after it.
	wordTerms := make([][]string, len(locs))
	joined := make([]bool, len(locs))
	for k, l := range locs {
		w := question[l[0]:l[1]]
		wordTerms[k] = embed.Terms(w)
		if k+1 < len(locs) {
			n := question[locs[k+1][0]:locs[k+1][1]]
			if len(n) == 1 && n[0] >= '0' && n[0] <= '9' && strings.TrimSpace(question[l[1]:locs[k+1][0]]) == "" {
				if jt := embed.Terms(w + " " + n); len(jt) > 0 && !slices.Equal(jt, wordTerms[k]) {
					wordTerms[k] = append(wordTerms[k], jt...)
					joined[k] = true
				}
			}
		}
	}
	seen := map[string]bool{question: true}
	skipped := 0
	for _, t := range terms {
		var b strings.Builder
		last := 0
		for k := 0; k < len(locs); k++ {
			if !slices.Contains(wordTerms[k], t) {
				continue
			}
			end := locs[k][1]
			if joined[k] {
				end = locs[k+1][1]
			}
			b.WriteString(question[last:locs[k][0]])
			last = end
		}
		b.WriteString(question[last:])
		text := strings.Join(strings.Fields(b.String()), " ")
		if seen[text] {
			continue
		}
		seen[text] = true
		if len(embed.Terms(text)) == 0 {
			skipped++
			continue
		}
		vs = append(vs, Variant{Word: t, Text: text})
		if len(vs) == MaxVariants {
			break
		}
	}
	if len(vs) == 0 {
		if skipped > 0 || len(terms) == 1 {
			return nil, "a one-word question has no word to leave out"
		}
		return nil, "the question has no content word to leave out"
	}
	return vs, ""
}

// Vectors are a question's vector and its variants', from one embedding
// call.
type Vectors struct {
	Question string
	Variants []Variant
	// Vecs[0] is the question's vector, Vecs[1+i] variant i's.
	Vecs [][]float32
}

// EmbedVariants embeds the question and its variants in one call (none
// when variants is empty: the question alone).
func EmbedVariants(ctx context.Context, emb retrieval.Embedder, question string, variants []Variant) (*Vectors, error) {
	texts := make([]string, 0, 1+len(variants))
	texts = append(texts, question)
	for _, v := range variants {
		texts = append(texts, v.Text)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed the question's leave-one-out variants: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: embed the question's variants: %d vectors for %d texts", retrieval.ErrUnavailable, len(vecs), len(texts))
	}
	return &Vectors{Question: question, Variants: variants, Vecs: vecs}, nil
}

// scoreBatch scores the chunks ids for the question and each variant in
// one batched search (one round trip on Qdrant), each search restricted
// to those ids and exact, so the scores are the store's own (the
// chunks' vectors are never embedded again). It returns the whole
// question's hits (with their chunks) and each variant's hits by id
// (whose score the attribution reads: see attributed).
func scoreBatch(ctx context.Context, store retrieval.Store, v *Vectors, ids []string, withVariants bool) ([]retrieval.ScoredChunk, []map[string]retrieval.ScoredChunk, error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	req := func(vec []float32, text string) retrieval.SearchRequest {
		return retrieval.SearchRequest{Vector: vec, Text: text, Limit: len(ids), Exact: true, Filters: retrieval.Filters{IDs: ids}}
	}
	reqs := []retrieval.SearchRequest{req(v.Vecs[0], v.Question)}
	if withVariants {
		for i, vr := range v.Variants {
			r := req(v.Vecs[1+i], vr.Text)
			r.IDsOnly = true
			reqs = append(reqs, r)
		}
	}
	got, err := retrieval.SearchAll(ctx, store, reqs)
	if err != nil {
		return nil, nil, fmt.Errorf("score the explained chunks: %w", err)
	}
	var per []map[string]retrieval.ScoredChunk
	for _, g := range got[1:] {
		m := make(map[string]retrieval.ScoredChunk, len(g))
		for _, s := range g {
			m[s.Chunk.ID] = s
		}
		per = append(per, m)
	}
	return got[0], per, nil
}

// attribute is each variant word's share of id's score, biggest first:
// of its dense side's score when dense (see attributed).
func attribute(v *Vectors, full retrieval.ScoredChunk, per []map[string]retrieval.ScoredChunk, id string, dense bool) []Attribution {
	out := make([]Attribution, 0, len(per))
	whole := attributed(full, dense)
	for i, m := range per {
		d := whole
		if s, ok := m[id]; ok {
			d -= attributed(s, dense)
		}
		out = append(out, Attribution{Word: v.Variants[i].Word, Delta: d})
	}
	slices.SortStableFunc(out, func(a, b Attribution) int {
		switch {
		case a.Delta > b.Delta:
			return -1
		case a.Delta < b.Delta:
			return 1
		}
		return 0
	})
	return out
}
