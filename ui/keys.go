package ui

import (
	"ragscope/ui/common"
)

// setAvailable turns off the keys of the features opts lacks: eval, the
// page's chunks, the chunk audit, the expected-source diagnosis and its
// ANN check.
func setAvailable(k *common.KeyMap, opts Options) {
	k.EvalOff = opts.Eval == nil
	k.PageOff = opts.PageChunks == nil
	k.ChunksOff = opts.Audit == nil
	k.ExpectOff, k.AnnOff = opts.Expect.Diagnose == nil, opts.Expect.Diagnose == nil || !opts.Expect.ANN
	k.ExplainOff, k.EditOff = opts.Explain.Explain == nil, opts.Explain.WhatIf == nil
}
