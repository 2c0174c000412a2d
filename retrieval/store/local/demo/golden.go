package demo

import _ "embed" // for the golden set

// golden is the demo's golden question set (retrieval/assess/eval format).
//
//go:embed eval/demo.yaml
var golden []byte

// GoldenSetName is the file name of the embedded golden set, for
// messages and format detection.
const GoldenSetName = "eval/demo.yaml"

// GoldenSet returns a copy of the demo's golden question set, the YAML
// `ragscope eval` runs when no file is given.
func GoldenSet() []byte {
	return append([]byte(nil), golden...)
}
