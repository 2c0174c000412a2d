// Package app assembles ragscope from its parts, and is the one door from
// the command line (package cli) to the backends and the features: it
// turns a resolved configuration (a Setup) into an opened Backend, a
// retrieval.Pipeline over the setup's store (the demo textbook, a local
// index or a Qdrant collection) and embedder (the offline one, or a
// provider's from the provider table), with its reranker and chat model;
// and it wires the features onto that backend — the explorer's options
// (ui.Options: expected sources, judge, eval view, split view, explain,
// link status), indexing a docs folder (BuildIndex), the chunk audit,
// golden-set loading and generation, the judge and the link checker's
// site.
//
// cli owns flags, output and exit codes; app owns which packages are
// opened with which settings. cli imports no provider or store package
// (retrieval/provider/..., retrieval/store/...): whatever it needs of
// them, app opens and hands back (a test in cli keeps this true).
//
// Where a feature spans the layers, its files carry one name in each:
// the command in cli/<feature>.go, its assembly in app/<feature>.go, its
// work in package retrieval/assess/<feature> — cli/judge.go, app/judge.go
// and retrieval/assess/judge; cli/golden_generate.go,
// app/golden_generate.go and retrieval/assess/golden; cli/compare.go
// (--vs), app/compare.go (OpenAll) and the paired comparison in
// retrieval/assess/eval. What a feature adds to the explorer is wired in
// app/explorer_<feature>.go (explorer_eval.go, explorer_judge.go,
// explorer_expect.go, explorer_compare.go); app/goldenset.go loads the
// golden sets that eval runs, whose format is retrieval/assess/eval's
// goldenset.go.
package app
