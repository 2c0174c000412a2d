// Package embed is ragscope's offline text embedder: deterministic, pure Go,
// with no network access at run time, fitted to the corpus it will search.
//
// A text's vector (Dim 512) is the concatenation of two parts, each
// L2-normalised and then scaled so that the whole is L2-normalised and the
// cosine of two texts is 0.3 times their semantic cosine plus 0.7 times
// their lexical cosine:
//
//   - semantic, 100 dimensions: the SIF-weighted mean (Arora, Liang and Ma
//     2017) of GloVe 6B 100-d word vectors (Pennington, Socher and Manning
//     2014), quantised to int8 and embedded in the binary, with the corpus's
//     common component removed. It lets "two-legged robot" find "bipedal
//     humanoids" and "pictures" find "images".
//   - lexical, 412 dimensions: TF-IDF over word unigrams, word bigrams and
//     character 3- to 5-grams within words, with sublinear term frequency
//     and IDF fitted on the corpus. It catches names the word vectors do not
//     know ("rclpy", "urdf", "nav2") and inflections ("simulate",
//     "simulation"). Rather than hashing these sparse vectors into 412
//     buckets, which adds noise of about 0.05 to every cosine, the model
//     projects them onto an orthonormal basis of the corpus documents' span:
//     for a corpus of up to 411 documents every question-document lexical
//     cosine of the dense vectors is then exact. A larger corpus's dense
//     lexical part is hashed; its exact lexical cosines come from the
//     model's postings (LexicalCosines), which a search combines with the
//     semantic part of the dense vectors (see SemanticDim), so retrieval is
//     exact at every corpus size.
//
// Vectors are meant to be compared with the fitted documents' vectors: a
// text outside the corpus is represented faithfully only in the part it
// shares with the corpus.
package embed

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// gloveDim is the length of the word vectors in data/glove50k.bin.
const gloveDim = 100

// config holds the model's tuning. defaultConfig is the shipped one; tests
// compare variants.
type config struct {
	lexDim int // lexical dimensions: projection coordinates plus rest

	minGram, maxGram int     // character n-gram lengths, markers included
	wordW            float64 // weight of a word unigram feature
	altW             float64 // weight of an alternative spelling's word feature
	charW            float64 // weight of a character n-gram feature
	bigramW          float64 // weight of a word bigram feature
	noProjection     bool    // always hash, even for small corpora

	sifA       float64 // SIF smoothing a in a/(a+p(w))
	corpusBeta float64 // share of the corpus frequency in p(w); the rest is Zipf
	removePC   bool    // remove the corpus's first principal component

	gloveShare float64 // share of the squared norm given to the semantic part
}

func defaultConfig() config {
	return config{
		lexDim:     412,
		minGram:    3,
		maxGram:    5,
		wordW:      1,
		altW:       0.5,
		charW:      0.5,
		bigramW:    0.5,
		sifA:       1e-3,
		corpusBeta: 0.5,
		removePC:   true,
		gloveShare: 0.3,
	}
}

// modelName names the algorithm and its data; change the version whenever
// vectors change for the same input, so stored vectors are not mixed.
const modelName = "ragscope-local-glove100-sif+chargram-v2"

// Model is a deterministic offline text embedder fitted to a corpus. It is
// safe for concurrent use after New.
type Model struct {
	cfg config

	glove   *gloveTable // nil when the embedded table failed to load
	loadErr error

	docs      int         // number of fitted documents
	lex       *lexTable   // lexical features: IDF and postings
	unseenIDF float32     // IDF of a feature no document had
	proj      *projection // exact lexical projection, nil when hashing

	pCorpus map[string]float32 // word -> share of the corpus's content tokens
	pc      []float32          // common component of the semantic part, or nil

	scratch sync.Pool // *featureScratch
}

// New fits the model's corpus statistics (IDF etc.) on docs. Deterministic:
// same docs, same model.
func New(docs []string) *Model {
	return newWithConfig(docs, defaultConfig())
}

func newWithConfig(docs []string, cfg config) *Model {
	m := &Model{cfg: cfg}
	m.glove, m.loadErr = loadGlove()
	toks := make([][]token, len(docs))
	for i, d := range docs {
		toks[i] = tokenize(d)
	}
	m.fitLexical(toks)
	m.fitSemantic(toks)
	return m
}

// Name identifies the embedder and its version.
func (m *Model) Name() string { return modelName }

// Dim is the vector length.
func (m *Model) Dim() int { return gloveDim + m.cfg.lexDim }

// Embed returns one L2-normalised vector per text (cosine similarity = dot
// product). It checks ctx between texts. A text with no usable words gives a
// zero vector and no error.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if m.loadErr != nil {
		return nil, fmt.Errorf("embed: load word vectors: %w", m.loadErr)
	}
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed text %d of %d: %w", i+1, len(texts), err)
		}
		out[i] = m.embedOne(text)
	}
	return out, nil
}

func (m *Model) embedOne(text string) []float32 {
	toks := tokenize(text)
	v := make([]float32, m.Dim())
	sem := v[:gloveDim]
	lex := v[gloveDim:]
	m.semanticVector(toks, sem)
	m.lexicalVector(toks, lex)
	m.weigh(v)
	return v
}

// weigh scales v's semantic and lexical parts, each to its share of a unit
// norm (all of it when the other part is zero).
func (m *Model) weigh(v []float32) {
	sem, lex := v[:gloveDim], v[gloveDim:]
	semN, lexN := norm(sem), norm(lex)
	semW := math.Sqrt(m.cfg.gloveShare)
	lexW := math.Sqrt(1 - m.cfg.gloveShare)
	switch {
	case semN == 0 && lexN == 0:
		return
	case semN == 0:
		lexW = 1
	case lexN == 0:
		semW = 1
	}
	if semN > 0 {
		scale(sem, float32(semW/semN))
	}
	if lexN > 0 {
		scale(lex, float32(lexW/lexN))
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func scale(v []float32, k float32) {
	for i := range v {
		v[i] *= k
	}
}
