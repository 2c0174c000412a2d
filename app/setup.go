package app

import (
	"io"
	"log/slog"
	"strings"

	"ragscope/config"
	"ragscope/retrieval"
)

// Settings is the configuration a setup describes (config.Config),
// under the name Setup embeds it by.
type Settings = config.Config

// Setup fully describes one retrieval configuration: where the chunks
// come from, how questions are embedded and ranked, what is cut, and who
// answers. Assembler.Open turns it into a pipeline; two setups may be
// opened in one process and share nothing mutable.
//
// Every setting lives in the embedded configuration (s.TopK,
// s.EmbedModel, s.Collection…): a setup is a resolved config.Config, its
// name (s.Setup, Name) from [setups.NAME], its backend resolved (never
// auto), plus the starting query's filters. A new setting is added to
// config alone.
type Setup struct {
	Settings
	// Filters are the starting query's filters.
	Filters retrieval.Filters
}

// FromConfig is the setup a resolved configuration describes: c with its
// backend resolved (config.Config.Resolved).
func FromConfig(c config.Config) Setup {
	c.Backend = c.Resolved()
	return Setup{Settings: c}
}

// Name is the setup's name in ragscope.toml ([setups.NAME]), "" for the
// file's top level.
func (s Setup) Name() string { return s.Setup }

// Config is the configuration the setup describes.
func (s Setup) Config() config.Config { return s.Settings }

// Query is the setup's starting query for question (top_k, threshold,
// dedup, filters, rerank, search mode).
func (s Setup) Query(question string) retrieval.Query {
	return retrieval.Query{
		Question:   question,
		TopK:       s.TopK,
		Threshold:  s.Threshold,
		NoDedup:    !s.Dedup,
		Filters:    s.Filters,
		Rerank:     s.RerankOptions(),
		SearchMode: s.searchMode(),
	}
}

// searchMode is the local search mode a query names: the setup's for the
// demo and local indexes, "" for Qdrant.
func (s Setup) searchMode() string {
	if s.Backend == config.BackendQdrant {
		return ""
	}
	return s.LocalSearch
}

// RerankOptions are a query's rerank options from the setup.
func (s Setup) RerankOptions() retrieval.RerankOptions {
	if strings.TrimSpace(s.RerankModel) == "" {
		return retrieval.RerankOptions{}
	}
	return retrieval.RerankOptions{On: true, Candidates: s.RerankCandidates, Threshold: s.RerankThreshold}
}

// Assembler turns setups into pipelines, the explorer's options and
// indexes. It holds no state of its own: one Assembler may open any
// number of setups, concurrently (OpenAll shares what they load alike).
type Assembler struct {
	// Providers is the provider table (Providers() when nil).
	Providers Table
	// Dir is the working directory (golden-set paths are relative to it).
	Dir string
	// Progress shows msg while long work runs and returns the func that
	// clears it; nil shows nothing.
	Progress func(msg string) func()
	// Log is the debug log (nil: none); LogWriter its writer, for
	// libraries that log on their own (gRPC).
	Log       *slog.Logger
	LogWriter io.Writer
	// JudgeCache is the explorer's judge cache folder (JudgeCacheDir);
	// "" keeps nothing between runs.
	JudgeCache string

	// share is the loads of the OpenAll call this copy serves (nil: none
	// shared).
	share *loadShare
}

// providers is the table in use.
func (as *Assembler) providers() Table {
	if as.Providers == nil {
		return Providers()
	}
	return as.Providers
}

// progress shows msg while long work runs.
func (as *Assembler) progress(msg string) func() {
	if as.Progress == nil {
		return func() {}
	}
	return as.Progress(msg)
}

// quiet is a copy of the assembler that shows no progress: the one work
// started from the explorer uses, since a line written to the terminal
// while the explorer draws would tear its frame (the explorer says what
// it waits for in its own status line).
func (as *Assembler) quiet() *Assembler {
	q := *as
	q.Progress = nil
	return &q
}

// logger is the debug logger, discarding when none is set.
func (as *Assembler) logger() *slog.Logger {
	if as.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return as.Log
}

// logWriter is where libraries' own logs go.
func (as *Assembler) logWriter() io.Writer {
	if as.LogWriter == nil {
		return io.Discard
	}
	return as.LogWriter
}

// Labelled is label with the setup's name before it ("setup small ·
// local index small.idx"), label alone for the top level.
func (s Setup) Labelled(label string) string {
	if s.Setup == "" {
		return label
	}
	return "setup " + s.Setup + " · " + label
}
