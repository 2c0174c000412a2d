package app

import (
	"context"
	"errors"

	"ragscope/retrieval"
	"ragscope/retrieval/qdrant"
)

// fieldWalker is a store that can scroll only the payload fields a
// command needs (Qdrant).
type fieldWalker interface {
	WalkFields(ctx context.Context, fields, required []string, fn func(page []retrieval.Chunk, total int) error) error
}

// auditFields are the chunk fields a chunk audit reads.
var auditFields = []string{qdrant.FieldText, qdrant.FieldURL, qdrant.FieldTitle, qdrant.FieldSection, qdrant.FieldDocPath, qdrant.FieldModule, qdrant.FieldChunkIndex, qdrant.FieldContentHash, qdrant.FieldPageSlug, qdrant.FieldHeadingID}

// WalkChunks lists every chunk of be to fn for an audit: a store that can
// scroll only some payload fields (Qdrant) is asked for the fields an
// audit reads, the text required (IsMissingField tells a store without
// it); another store walks whole chunks.
func WalkChunks(ctx context.Context, be *Backend, fn func(page []retrieval.Chunk, total int) error) error {
	if fw, ok := be.Walker.(fieldWalker); ok {
		return fw.WalkFields(ctx, auditFields, []string{qdrant.FieldText}, fn)
	}
	return be.Walker.Walk(ctx, fn)
}

// IsMissingField reports whether err is a store's answer that a required
// payload field is missing (a configuration error: the payload mapping).
func IsMissingField(err error) bool {
	var mf *qdrant.MissingFieldError
	return errors.As(err, &mf)
}
