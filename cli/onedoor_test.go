package cli

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// backendPackages are the import path prefixes of the packages cli reaches
// only through app: the providers (embedders, rerankers, chat models and
// what they share: retries, caches, chat tasks) and the stores.
var backendPackages = []string{
	"ragscope/retrieval/provider/",
	"ragscope/retrieval/store/",
}

// TestCLIReachesBackendsThroughApp keeps app the one door from the command
// line to the backends: no non-test file of cli imports a provider or a
// store package (retrieval/provider/..., retrieval/store/...). What cli
// needs of them — an opened Backend and its pipeline, a judge, a golden
// question writer, an index build, the chat model's down error — app
// assembles and hands back, so a provider or store changes in one place.
//
// The rule is about imports, not about features: cli may import the
// packages of the tools that assess retrieval (retrieval/assess/...) and
// links for their types, options, defaults and report writers, which is
// what a command parses and prints, and it runs them on what app opened
// (an app.Backend's Pipeline or Walker). The pipeline core (retrieval),
// config, present, termsafe, ui and internal/* are not backends. Tests are
// free to import the providers' and stores' fakes.
func TestCLIReachesBackendsThroughApp(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			for _, prefix := range backendPackages {
				if strings.HasPrefix(path, prefix) {
					t.Errorf("cli/%s imports %s: cli reaches providers and stores only through app; have app open it and hand back what the command needs", name, path)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d non-test files checked: the test is not reading cli's folder", checked)
	}
}
