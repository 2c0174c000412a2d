package app

import (
	"context"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/local"
)

// IndexJob describes a local index build: the docs folder, the file to
// save, and the callbacks that show its progress.
type IndexJob struct {
	// Docs is the docs folder (or the site folder holding it); Out the
	// index file to write.
	Docs, Out string
	// FollowSymlinks indexes files whose links lead outside Docs.
	FollowSymlinks bool
	// Settings gives the citation base URL and the chunker's facets.
	Settings config.Config
	// Note receives remarks (a symbolic link written through, a site
	// folder's docs folder taken); Warn the build's warnings. Either may
	// be nil.
	Note, Warn func(msg string)
	// Progress shows a stage's progress; Clear clears it. Either may be nil.
	Progress func(stage string, done, total int)
	Clear    func()
	// Before runs once the output is locked, as the build starts.
	Before func()
	// Check, when set, reads the built index before it is saved (e.g. the
	// chunks over a model's input); an error stops the build.
	Check func(ctx context.Context, ix retrieval.Walker) error
}

// IndexResult is what a build made.
type IndexResult struct {
	// Docs is the docs folder indexed; Target the file written (Out, or
	// the file its link leads to).
	Docs, Target string
	// Pages, Chunks and Skipped count the pages read, the chunks made and
	// the files skipped.
	Pages, Chunks, Skipped int
	// Model and Dim are the offline embedder's.
	Model string
	Dim   int
	// DocsBase is the citation base ("" when none was found).
	DocsBase string
	// Layout says how modules are derived (LayoutNote).
	Layout string
}

// BuildIndex chunks every markdown page under the job's docs folder,
// embeds the chunks with the offline embedder and saves the index. The
// output is checked and locked before any work: a second build writing
// the same file stops at once, and a failed one leaves the old file.
func BuildIndex(ctx context.Context, job IndexJob) (IndexResult, error) {
	note := func(msg string) {
		if job.Note != nil {
			job.Note(msg)
		}
	}
	progress := func(stage string, done, total int) {
		if job.Progress != nil {
			job.Progress(stage, done, total)
		}
	}
	clear := func() {
		if job.Clear != nil {
			job.Clear()
		}
	}
	// -o LINK writes through the link: its target is replaced
	// (atomically, next to it) and the link kept.
	target, err := local.OutputTarget(job.Out)
	if err != nil {
		return IndexResult{}, err
	}
	if target != job.Out {
		note(job.Out + " is a symbolic link: the index is written to the file it leads to, " + target + " (the link is kept)")
	}
	// A read-only or missing output folder fails now, not after the build.
	if err := local.CheckWritable(target); err != nil {
		return IndexResult{}, err
	}
	// Two runs writing the same file: the second stops now.
	unlock, err := local.LockOutput(target)
	if err != nil {
		return IndexResult{}, err
	}
	defer unlock()
	if job.Before != nil {
		job.Before()
	}
	docsDir := job.Docs
	if d, ok := SiteDocsDir(docsDir); ok {
		note(docsDir + " is a Docusaurus site folder: indexing its docs folder " + d)
		docsDir = d
	}
	progress("reading "+docsDir, 0, 1)
	ix, corpus, err := local.BuildDir(ctx, docsDir, local.BuildOptions{
		BaseURL: job.Settings.DocsBaseURL, FollowSymlinks: job.FollowSymlinks, Progress: progress, Chunk: ChunkOptions(job.Settings),
	})
	clear()
	if err != nil {
		return IndexResult{}, err
	}
	for _, w := range corpus.Warnings {
		if job.Warn != nil {
			job.Warn(w.String())
		}
	}
	if job.Check != nil {
		if err := job.Check(ctx, ix); err != nil {
			return IndexResult{}, err
		}
	}
	progress("saving "+job.Out, 0, 1)
	err = local.SaveIndex(ctx, target, ix, corpus)
	clear()
	if err != nil {
		return IndexResult{}, err
	}
	return IndexResult{
		Docs: docsDir, Target: target,
		Pages: corpus.Pages, Chunks: ix.Len(), Skipped: corpus.Skipped,
		Model: ix.Info().Model, Dim: ix.Dim(), DocsBase: corpus.DocsBase,
		Layout: LayoutNote(job.Settings, docsDir),
	}, nil
}
