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
// them, app opens and hands back (see the test in cli that keeps this
// true). Where a feature spans the layers, its files carry the same name
// in each: cli/golden_generate.go, app/golden_generate.go and package
// retrieval/assess/golden; cli/judge.go, app/judge.go and package
// retrieval/assess/judge; cli/eval.go, app/eval.go and package
// retrieval/assess/eval.
package app
