package docusaurus

import "ragscope/internal/lazyre"

// lazyRE is lazyre.New, the name this package's expressions are declared
// with: this package is linked into every ragscope process, `--help`
// included, and compiling its two dozen expressions at initialisation cost
// every one of them about a millisecond; most never scan a heading.
func lazyRE(expr string) *lazyre.Regexp { return lazyre.New(expr) }
