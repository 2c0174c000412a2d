package cli

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval/store/qdrant/qdranttest"
	"ragscope/ui"
)

// splitApp is an App resolved from env and args as the command line
// resolves `ragscope ARGS` (the explorer).
func splitApp(t *testing.T, env map[string]string, args ...string) *App {
	t.Helper()
	env = with(env, "XDG_STATE_HOME", t.TempDir())
	a := &App{
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: env["__DIR"],
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	root := a.NewRootCmd()
	if err := root.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	if err := a.resolveConfig(root); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.closeBackends)
	return a
}

// TestTUISplitDemoSetups: `ragscope --setup hybrid --vs bm25` on the demo
// book; V splits the results, each row's mark is the one `query --setup
// hybrid --vs bm25` prints for its source, enter opens a row's detail on
// either side, and at 80 columns the split still fits.
func TestTUISplitDemoSetups(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	env := map[string]string{"__DIR": dir}
	const question = "how do nodes talk to each other?"
	opts, err := splitApp(t, env, "--setup", "hybrid", "--vs", "bm25").tuiOptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := opts.Compare; c.Name != "hybrid" || c.Vs != "bm25" || c.Retrieve == nil || strings.Join(c.Setups, ",") != "bm25" {
		t.Fatalf("compare options: %+v", c)
	}
	d := newTUIDriver(t, opts)
	d.ask(question)
	d.until("results", 10*time.Second, idle)
	d.keys("V")
	d.until("setup B's ranking", 10*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "B · bm25 · 3 hits") })

	code, out, errs := run(t, env, "", "query", "--setup", "hybrid", "--vs", "bm25", "--json", question)
	if code != ExitOK {
		t.Fatalf("query --vs: exit %d: %s", code, errs)
	}
	var doc QueryCompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, s := range doc.Sources {
		for i, r := range s.Ranks {
			if r > 0 {
				want[strconv.Itoa(i)+" "+strconv.Itoa(r)+" "+s.Source] = s.Moves[0]
			}
		}
	}
	rows := d.m.SplitRows()
	if len(rows[0]) != 5 || len(rows[1]) != 3 {
		t.Fatalf("rows %q", rows)
	}
	marks := 0
	for side, list := range rows {
		for _, r := range list {
			rank, rest, _ := strings.Cut(r, " ")
			for k, mark := range want {
				if strings.HasPrefix(k, strconv.Itoa(side)+" "+rank+" ") && rest == strings.TrimPrefix(k, strconv.Itoa(side)+" "+rank+" ")+" "+mark {
					marks++
				}
			}
		}
	}
	if marks != 8 {
		t.Fatalf("%d of 8 rows carry query --vs's mark: rows %q, sources %+v", marks, rows, doc.Sources)
	}

	d.keys(tea.KeyEnter)
	if v := screen(d.m); !strings.Contains(v, "Detail of A hybrid #1") || !strings.Contains(v, "citation") {
		t.Fatalf("A's detail:\n%s", v)
	}
	d.keys(tea.KeyEscape, tea.KeyRight, tea.KeyDown, tea.KeyEnter)
	if v := screen(d.m); !strings.Contains(v, "Detail of B bm25 #2") {
		t.Fatalf("B's detail:\n%s", v)
	}
	d.keys(tea.KeyEscape)
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := screen(d.m)
	for i, ln := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(ln); w > 80 {
			t.Fatalf("line %d is %d cells at 80 columns: %q", i, w, ln)
		}
	}
	if !strings.Contains(v, "A · hybrid") || !strings.Contains(v, "B · bm25 · 3 hits") {
		t.Fatalf("80 columns:\n%s", v)
	}
}

// TestTUISplitSetupBRejected: setup B's Cohere key refused (401 from the
// in-process server) shows in B's half; A's ranking from Qdrant stays and
// the key is never shown.
func TestTUISplitSetupBRejected(t *testing.T) {
	_, _, env := fakes(t)
	dir := setupsDir(t, "[setups.good]\nqdrant.collection = \""+qdranttest.CollectionA+"\"\n\n[setups.badkey]\ncohere.api_key = \"wrong-key\"\n")
	env = with(env, "__DIR", dir)
	opts, err := splitApp(t, env, "--setup", "good", "--vs", "badkey").tuiOptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := newTUIDriver(t, opts)
	d.ask("how do ROS 2 nodes communicate?")
	d.until("results", 10*time.Second, idle)
	d.keys("V")
	d.until("setup B's error", 15*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "✗ setup badkey") })
	v := screen(d.m)
	rows := d.m.SplitRows()
	if len(rows[0]) == 0 || len(rows[1]) != 0 || !strings.Contains(v, "A · good") || strings.Contains(d.m.Status(), "✗") {
		t.Fatalf("rows %q, status %q\n%s", rows, d.m.Status(), v)
	}
	if !strings.Contains(v, "COHERE_API_KEY") {
		t.Errorf("B's error does not say which key was refused:\n%s", v)
	}
	assertNoSecrets(t, v, d.m.Status())
	if strings.Contains(v, "wrong-key") {
		t.Fatalf("the setup's key is on screen:\n%s", v)
	}
	d.keys(tea.KeyEnter)
	if !strings.Contains(screen(d.m), "Detail of A good #1") {
		t.Fatalf("A is not usable:\n%s", screen(d.m))
	}
}

// TestExplorerVsUsage: a bad --vs for the explorer is refused before the
// screen opens.
func TestExplorerVsUsage(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	env := map[string]string{"__DIR": dir}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--vs", "large"}, ExitConfig, "--vs large: no such setup in "},
		{[]string{"--setup", "bm25", "--vs", "bm25"}, ExitUsage, "the explorer already shows setup bm25"},
		{[]string{"--vs", " "}, ExitUsage, "--vs needs the name of a setup"},
	} {
		code, _, errs := run(t, env, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %s", tc.args, code, errs)
		}
	}
}
