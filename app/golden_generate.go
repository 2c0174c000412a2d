package app

import (
	"context"
	"fmt"
	"strings"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/golden"
	"ragscope/retrieval/provider/chatcache"
)

// GoldenGenerator builds the golden question writer of the setup's chat
// model, caching in cacheDir ("" keeps nothing between runs), working on
// concurrency sections at a time. No chat model is an error matching
// retrieval.ErrNoGenerator that says how to set one.
func (as *Assembler) GoldenGenerator(s Setup, cacheDir string, concurrency int) (*golden.Generator, error) {
	gen, err := as.Generator(s)
	if err != nil {
		return nil, err
	}
	return golden.New(gen, golden.Options{Cache: openChatCache(cacheDir), Concurrency: concurrency})
}

// GoldenBook reads every chunk of be (WalkChunks) into the book's sections
// (golden.Sections, with be's citation URLs) and says what the book is, for
// the set's header: the backend, its chunk count and a hash of the
// sections' text (the same book gives the same hash whatever order the
// store lists its chunks in). progress, when not nil, hears the chunks read
// so far and the total (0 when unknown).
func GoldenBook(ctx context.Context, be *Backend, progress func(read, total int)) ([]golden.Section, string, error) {
	if be.Walker == nil {
		return nil, "", fmt.Errorf("%w: the %s backend cannot list its chunks, so no questions can be written from them", retrieval.ErrConfig, be.Kind)
	}
	var chunks []retrieval.Chunk
	err := WalkChunks(ctx, be, func(page []retrieval.Chunk, total int) error {
		chunks = append(chunks, page...)
		if progress != nil {
			progress(len(chunks), total)
		}
		return ctx.Err()
	})
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if err != nil {
		return nil, "", err
	}
	secs := golden.Sections(chunks, be.Pipeline.URLs)
	var sum strings.Builder
	for _, s := range secs {
		sum.WriteString(s.DocPath + "\x00" + s.Hash() + "\n")
	}
	source := be.Label
	if be.Kind == config.BackendQdrant {
		source += " · collection " + be.Collection
	}
	source += fmt.Sprintf(" · %d chunks · content sha256 %s", len(chunks), chatcache.Hash(sum.String())[:16])
	return secs, source, nil
}
