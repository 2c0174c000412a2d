package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

// hybridExample is a documentation block that runs on the in-process
// Qdrant's hybrid collection: a first line "$ export
// QDRANT_COLLECTION=textbook_hybrid [VAR=value…]", then commands ("$
// ragscope …"), each with what it prints.
type hybridExample struct {
	line  int // the block's first line, from 1
	env   []string
	steps []hybridStep
}

// hybridStep is one command of a hybridExample and the lines it shows.
type hybridStep struct {
	cmd   string
	shown []string
}

const hybridExport = "$ export QDRANT_COLLECTION=" + qdranttest.CollectionHybrid

// hybridExamples finds the hybrid example blocks of a page.
func hybridExamples(md string) []hybridExample {
	lines := strings.Split(md, "\n")
	var out []hybridExample
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] != "```" || !strings.HasPrefix(lines[i+1], hybridExport) {
			continue
		}
		ex := hybridExample{line: i + 2, env: strings.Fields(strings.TrimPrefix(lines[i+1], "$ export "))}
		j := i + 2
		for ; j < len(lines) && lines[j] != "```"; j++ {
			if cmd, ok := strings.CutPrefix(lines[j], "$ ragscope "); ok {
				ex.steps = append(ex.steps, hybridStep{cmd: cmd})
			} else if len(ex.steps) > 0 {
				last := &ex.steps[len(ex.steps)-1]
				last.shown = append(last.shown, lines[j])
			}
		}
		out = append(out, ex)
		i = j
	}
	return out
}

// matchShown reports whether shown is what got prints: the shown lines
// from got's first line on, where a line "…" stands for lines left out
// (so the lines between two "…" are consecutive in got) and lines after
// the last shown are left out too. It returns the first shown line that
// does not match.
func matchShown(shown, got []string) (string, bool) {
	at := 0
	skip := false
	for _, l := range shown {
		if l == "…" {
			skip = true
			continue
		}
		i := at
		if skip {
			for i < len(got) && got[i] != l {
				i++
			}
		}
		if i >= len(got) || got[i] != l {
			return l, false
		}
		at, skip = i+1, false
	}
	return "", true
}

// The hybrid examples of the README and docs/retrieval.md are the
// program's output on the in-process Qdrant's hybrid collection: the
// header, stats' vectors, a hit's arms, --json's arms (as jq -c prints
// them) and the refusal of a sparse model ragscope cannot run. Only the
// server's address differs: the pages show it as http://127.0.0.1:6334.
func TestDocHybridExamplesAreReal(t *testing.T) {
	_, _, env := fakes(t)
	const shownURL = "http://127.0.0.1:6334"
	perPage := map[string]int{}
	for _, page := range userDocs(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range hybridExamples(string(b)) {
			e := with(env)
			for _, kv := range ex.env {
				k, v, _ := strings.Cut(kv, "=")
				e[k] = v
			}
			for _, st := range ex.steps {
				perPage[page]++
				cmd, jqArms := strings.CutSuffix(st.cmd, ` | jq -c '.results[0].arms'`)
				code, out, errs := run(t, e, "", splitArgs(cmd)...)
				var got []string
				if out != "" {
					got = strings.Split(strings.ReplaceAll(strings.TrimRight(out, "\n"), env["QDRANT_URL"], shownURL), "\n")
				}
				if jqArms {
					got = []string{compactArms(t, out)}
				}
				if errs != "" {
					got = append(got, strings.Split(strings.TrimRight(errs, "\n"), "\n")...)
				}
				wantCode := ExitOK
				for _, l := range st.shown {
					if strings.HasPrefix(l, "ragscope: ") {
						wantCode = ExitConfig
					}
				}
				if code != wantCode {
					t.Errorf("%s:%d: $ ragscope %s: exit %d, want %d: %s", page, ex.line, st.cmd, code, wantCode, errs)
				}
				if l, ok := matchShown(st.shown, got); !ok {
					t.Errorf("%s:%d: $ ragscope %s shows %q, which it does not print:\n%s", page, ex.line, st.cmd, l, strings.Join(got, "\n"))
				}
			}
		}
	}
	if perPage["../README.md"] < 1 || perPage["../docs/retrieval.md"] < 4 {
		t.Errorf("hybrid examples run per page: %v; want the README's and the retrieval page's", perPage)
	}
}

// compactArms is jq -c '.results[0].arms' of a query --json document.
func compactArms(t *testing.T, out string) string {
	t.Helper()
	var doc struct {
		Results []struct {
			Arms json.RawMessage `json:"arms"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) == 0 {
		t.Fatalf("query --json: %v\n%s", err, out)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc.Results[0].Arms); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
