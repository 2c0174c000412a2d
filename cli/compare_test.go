package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// setupsDir is a working directory whose ragscope.toml holds body.
func setupsDir(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragscope.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

const demoSetups = `[setups.hybrid]
local.search = "hybrid"

[setups.bm25]
local.search = "bm25"
retrieval.top_k = 3
`

// TestSetupFlagChoosesSetup: --setup applies a named setup's keys (over
// the top level), every output names it, and bad setups are exit 2 with
// the file and line.
func TestSetupFlagChoosesSetup(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	code, out, errs := run(t, map[string]string{"__DIR": dir}, "", "--setup", "bm25", "query", "--json", "how do nodes talk?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Params.Ranking != "bm25" || doc.Params.TopK != 3 || !strings.HasPrefix(doc.Backend.Name, "setup bm25 · demo textbook") {
		t.Errorf("--setup bm25: ranking %q top_k %d backend %q", doc.Params.Ranking, doc.Params.TopK, doc.Backend.Name)
	}
	// Flags win over the setup.
	code, out, _ = run(t, map[string]string{"__DIR": dir}, "", "--setup", "bm25", "query", "-k", "4", "how do nodes talk?")
	if code != ExitOK || !strings.HasPrefix(out, "ragscope · setup bm25 · demo textbook") || !strings.Contains(out, "top_k 4") {
		t.Errorf("text header or -k over the setup:\n%s", out)
	}

	code, _, errs = run(t, map[string]string{"__DIR": dir}, "", "--setup", "large", "stats")
	if code != ExitConfig || !strings.Contains(errs, "--setup large: no such setup in "+filepath.Join(dir, "ragscope.toml")) ||
		!strings.Contains(errs, "hybrid (line 1), bm25 (line 4)") {
		t.Errorf("unknown setup: exit %d, %s", code, errs)
	}
	bad := setupsDir(t, demoSetups+"\n[setups.typo]\nlocal.serch = \"bm25\"\n")
	code, _, errs = run(t, map[string]string{"__DIR": bad}, "", "stats")
	if code != ExitConfig || !strings.Contains(errs, "ragscope.toml line 9: unknown setting setups.typo.local.serch") {
		t.Errorf("unknown key in a setup: exit %d, %s", code, errs)
	}
}

// TestSetupsCommandLists: `ragscope setups` lists each setup with its
// line and what it resolves to.
func TestSetupsCommandLists(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	code, out, errs := run(t, map[string]string{"__DIR": dir}, "", "setups", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc SetupsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != SetupsSchema || len(doc.Setups) != 2 || doc.Setups[1].Name != "bm25" || doc.Setups[1].Line != 4 ||
		doc.Setups[1].Search != "bm25" || doc.Setups[1].TopK != 3 || doc.Setups[0].Backend != "demo" {
		t.Errorf("setups: %+v", doc)
	}
	code, out, _ = run(t, nil, "", "setups")
	if code != ExitNoResults || !strings.Contains(out, "[setups.small.local]") {
		t.Errorf("no setups: exit %d\n%s", code, out)
	}
}

// twoIndexes writes a small book, indexes it, and returns a working
// directory whose setups are the saved index (BM25) and the docs folder
// indexed on the fly (the offline embedder alone): two local indexes.
func twoIndexes(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	pages := map[string]string{
		"motors/01-torque.md":   "---\ntitle: Torque Control\n---\n\n## Current Loops\n\nA motor driver closes a current loop to control torque precisely.\n\n## Gear Ratios\n\nGearboxes trade speed for torque in every joint of the arm.\n",
		"sensing/01-imu.md":     "---\ntitle: Inertial Sensing\n---\n\n## Gyroscopes\n\nA gyroscope measures angular velocity; integrating it drifts over time.\n\n## Accelerometers\n\nAn accelerometer measures gravity and linear acceleration of the torso.\n",
		"sensing/02-lidar.md":   "---\ntitle: LiDAR\n---\n\n## Point Clouds\n\nA spinning LiDAR publishes point clouds of the room around the robot.\n",
		"walking/01-balance.md": "---\ntitle: Balance\n---\n\n## Zero Moment Point\n\nThe zero moment point must stay inside the support polygon of the feet.\n",
	}
	for name, body := range pages {
		p := filepath.Join(docs, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(root, "book.idx")
	if code, _, errs := run(t, nil, "", "index", docs, "-o", idx); code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	toml := "[setups.saved]\nlocal.index = \"" + idx + "\"\nlocal.search = \"bm25\"\n\n[setups.fly]\nlocal.docs = \"" + docs + "\"\nlocal.search = \"embedder\"\n"
	if err := os.WriteFile(filepath.Join(root, "ragscope.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "book.yaml"), []byte(`name: book
cases:
  - {id: gears, question: "How do gearboxes change torque?", expected_doc_paths: [docs/motors/01-torque.md]}
  - {id: drift, question: "Why does integrating a gyroscope drift?", expected_doc_paths: [docs/sensing/01-imu.md]}
  - {id: lidar, question: "What publishes point clouds of the room?", expected_doc_paths: [docs/sensing/02-lidar.md]}
  - {id: zmp, question: "Where must the zero moment point stay?", expected_doc_paths: [docs/walking/01-balance.md], expected_keywords: [support polygon]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestEvalVsTwoLocalIndexes: a saved index and a docs folder, each its
// own setup, run the same set in one process; the document has both
// setups' figures, the paired metrics and a verdict with its figures.
func TestEvalVsTwoLocalIndexes(t *testing.T) {
	root := twoIndexes(t)
	md := filepath.Join(root, "compare.md")
	set := filepath.Join(root, "book.yaml")
	code, out, errs := run(t, map[string]string{"__DIR": root}, "", "eval", set, "--setup", "saved", "--vs", "fly", "--json", "--markdown", md)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var doc CompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != CompareSchema || doc.Cases != 4 || len(doc.Setups) != 2 || len(doc.Comparisons) != 1 {
		t.Fatalf("document: %+v", doc)
	}
	a, b := doc.Setups[0], doc.Setups[1]
	if a.Name != "saved" || b.Name != "fly" || a.Backend.Kind != "local" || b.Backend.Kind != "local" ||
		!strings.Contains(a.Backend.Name, "local index") || !strings.Contains(b.Backend.Name, "local docs") ||
		a.Errors+b.Errors != 0 || a.EmbedCalls == 0 || a.TokensEstimate != nil || a.RankingCases != 4 {
		t.Errorf("setups: %+v\n%+v", a, b)
	}
	c := doc.Comparisons[0]
	mrr, ok := c.Metric(eval.VerdictMetric)
	if !ok || mrr.Pairs != 4 || mrr.Wins+mrr.Losses+mrr.Ties != 4 || len(c.Cases) != 4 {
		t.Errorf("MRR %+v, cases %d", mrr, len(c.Cases))
	}
	if _, ok := c.Metric("keyword coverage"); !ok {
		t.Error("no keyword coverage though a case lists keywords")
	}
	// Four cases can never be a clear difference (p ≥ 0.125).
	if c.Clear || !strings.HasPrefix(c.Verdict, "no clear difference: MRR ") || !strings.Contains(c.Verdict, ", p = ") {
		t.Errorf("verdict %q", c.Verdict)
	}
	body, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(body), "## fly vs saved") || !strings.Contains(string(body), "**no clear difference: MRR") {
		t.Errorf("markdown (%v):\n%s", err, body)
	}
	// The text report: both setups, the metric table, the verdict.
	code, out, errs = run(t, map[string]string{"__DIR": root}, "", "eval", set, "--setup", "saved", "--vs", "fly")
	if code != ExitOK || !strings.Contains(out, "A  saved: setup saved · local index") || !strings.Contains(out, "fly vs saved: paired over 4 cases") ||
		!strings.Contains(out, "Verdict: no clear difference: MRR") {
		t.Errorf("text: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestEvalVsUsage: flags a comparison does not take, a setup twice and an
// unknown --vs setup.
func TestEvalVsUsage(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	env := map[string]string{"__DIR": dir}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval", "--vs", "bm25", "--baseline", "x.json"}, ExitUsage, "does not take --baseline"},
		{[]string{"eval", "--setup", "bm25", "--vs", "bm25"}, ExitUsage, "already in the comparison"},
		{[]string{"eval", "--vs", "large"}, ExitConfig, "--vs large: no such setup in "},
		{[]string{"eval", "--vs", "large"}, ExitConfig, "(it defines hybrid (line 1), bm25 (line 4))"},
		{[]string{"query", "--vs", "bm25,large", "q"}, ExitConfig, "--vs large: no such setup in "},
		{[]string{"--setup", "", "stats"}, ExitUsage, "--setup needs the name of a setup of ragscope.toml"},
		{[]string{"--setup", " ", "eval", "--vs", "bm25"}, ExitUsage, "--setup needs the name of a setup of ragscope.toml"},
		{[]string{"query", "--vs", "bm25", "--context", "q"}, ExitUsage, "does not take --context"},
		// A Markdown file that cannot be written fails before the run.
		{[]string{"eval", "--setup", "hybrid", "--vs", "bm25", "--markdown", filepath.Join(dir, "no-such-folder", "c.md")}, ExitConfig, "--markdown: cannot write"},
	} {
		code, _, errs := run(t, env, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
		}
	}
}

// TestEvalVsFailingArmIsErrorsNotWins: a setup whose provider refuses
// its key (401 from the in-process Cohere server) makes its cases errors;
// the verdict says so, nothing counts as a win for the other setup, and
// the run exits 3.
func TestEvalVsFailingArmIsErrorsNotWins(t *testing.T) {
	_, _, env := fakes(t)
	dir := setupsDir(t, "[setups.good]\nqdrant.collection = \""+qdranttest.CollectionA+"\"\n\n[setups.badkey]\ncohere.api_key = \"wrong-key\"\n")
	env = with(env, "__DIR", dir)
	set := writeSet(t, "set.yaml", `name: servers
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", expected_modules: [module-1-ros2]}
  - {id: lidar, question: "How does a simulated LiDAR publish point clouds?", expected_modules: [module-2-simulation]}
  - {id: reward, question: "How does reward shaping help a walking policy?", expected_modules: [module-3-isaac]}
`)
	code, out, errs := run(t, env, "", "eval", set, "--setup", "good", "--vs", "badkey", "--json")
	if code != ExitBackend {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	assertNoSecrets(t, out, errs)
	var doc CompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := doc.Comparisons[0]
	mrr, _ := c.Metric(eval.VerdictMetric)
	if doc.Setups[0].Errors != 0 || doc.Setups[1].Errors != 3 || doc.Setups[1].Outage == "" || c.ErrorsB != 3 ||
		mrr.Wins+mrr.Losses+mrr.Ties != 0 || c.Clear || c.Better != "" {
		t.Errorf("failing arm: setups %+v, comparison %+v", doc.Setups, c)
	}
	for _, pc := range c.Cases {
		if pc.Outcome != eval.OutcomeError {
			t.Errorf("case %s: %s, want error", pc.ID, pc.Outcome)
		}
	}
	if !strings.HasPrefix(c.Verdict, "no verdict: badkey failed 3 of 3 cases (") || !strings.Contains(c.Verdict, "errors are not wins") {
		t.Errorf("verdict %q", c.Verdict)
	}
	if strings.Contains(out+errs, "wrong-key") {
		t.Errorf("the setup's key was printed:\n%s\n%s", out, errs)
	}
	if !strings.Contains(errs, "setup badkey") {
		t.Errorf("stderr does not name the failing setup: %s", errs)
	}
}

// TestEvalVsQdrantAndLocal: a setup on a Qdrant collection (in-process
// server, Cohere embeddings) against the demo's local index, and two
// Qdrant collections: both arms run, relevance by module and path.
func TestEvalVsQdrantAndLocal(t *testing.T) {
	_, _, env := fakes(t)
	dir := setupsDir(t, "[setups.a]\nqdrant.collection = \""+qdranttest.CollectionA+"\"\n\n[setups.b]\nqdrant.collection = \""+qdranttest.CollectionB+"\"\n\n[setups.demo]\nbackend = \"demo\"\n")
	env = with(env, "__DIR", dir)
	set := writeSet(t, "set.yaml", `name: servers
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", expected_modules: [module-1-ros2]}
  - {id: urdf, question: "How are links and joints of a humanoid described in XML?", expected_doc_paths: [docs/module-1-ros2/05-urdf-humanoids.md]}
  - {id: lidar, question: "How does a simulated LiDAR publish point clouds?", expected_modules: [module-2-simulation]}
`)
	code, out, errs := run(t, env, "", "eval", set, "--setup", "a", "--vs", "demo,b", "--json")
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	assertNoSecrets(t, out, errs)
	var doc CompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Setups) != 3 || doc.Setups[0].Backend.Kind != "qdrant" || doc.Setups[1].Backend.Kind != "demo" || doc.Setups[2].Backend.Kind != "qdrant" ||
		doc.Setups[0].Backend.Collection != qdranttest.CollectionA || doc.Setups[2].Backend.Collection != qdranttest.CollectionB || len(doc.Comparisons) != 2 {
		t.Fatalf("setups %+v", doc.Setups)
	}
	for _, s := range doc.Setups {
		if s.Errors != 0 || s.HitAtK == 0 {
			t.Errorf("setup %s: %+v", s.Name, s)
		}
	}
	if doc.Setups[0].TokensEstimate == nil || *doc.Setups[0].TokensEstimate == 0 || doc.Setups[1].TokensEstimate != nil {
		t.Errorf("tokens: a %v, demo %v", doc.Setups[0].TokensEstimate, doc.Setups[1].TokensEstimate)
	}
	for _, c := range doc.Comparisons {
		if m, _ := c.Metric(eval.VerdictMetric); m.Pairs != 3 || c.ErrorsA+c.ErrorsB != 0 {
			t.Errorf("%s vs %s: %+v", c.B, c.A, c)
		}
	}
}

// TestQueryVsSideBySide: two setups' rankings of one question, with
// every source's ranks and movement.
func TestQueryVsSideBySide(t *testing.T) {
	dir := setupsDir(t, demoSetups)
	env := map[string]string{"__DIR": dir}
	code, out, errs := run(t, env, "", "query", "--setup", "hybrid", "--vs", "bm25", "--json", "how do nodes talk to each other?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc QueryCompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != QueryCompareSchema || len(doc.Setups) != 2 || doc.Setups[0].Result.Params.TopK != 5 || doc.Setups[1].Result.Params.TopK != 3 ||
		doc.Setups[1].Result.Params.Ranking != "bm25" || len(doc.Sources) == 0 {
		t.Fatalf("document: %+v", doc)
	}
	for _, s := range doc.Sources {
		if len(s.Ranks) != 2 || len(s.Moves) != 1 || s.Moves[0] != present.MoveMark(s.Ranks[0], s.Ranks[1], "A", "B") || strings.Contains(s.Source, "chunk") {
			t.Errorf("source %+v", s)
		}
	}
	code, out, _ = run(t, env, "", "query", "--setup", "hybrid", "--vs", "bm25", "how do nodes talk to each other?")
	if code != ExitOK || !strings.Contains(out, "A: hybrid") || !strings.Contains(out, "B: bm25") || !strings.Contains(out, "B VS A") {
		t.Errorf("text:\n%s", out)
	}
}

// TestCompareExitExactSignTest: exit 4 (a --vs setup clearly worse)
// follows the exact sign test. B behind on 11 of 14 decided cases has an
// interval below 0 and a normal-form p of 0.03, but an exact p of 0.057:
// no clear difference, exit 0, and the verdict says the two disagree. 14
// of 16 is clear (exact p 0.004): exit 4.
func TestCompareExitExactSignTest(t *testing.T) {
	doc := func(losses, wins int) CompareJSON {
		var a, b eval.Report
		add := func(n int, ra, rb float64) {
			for range n {
				id := string(rune('a' + len(a.Cases)))
				a.Cases = append(a.Cases, eval.CaseResult{ID: id, Kind: eval.KindRanking, Status: eval.StatusPass, ReciprocalRank: ra})
				b.Cases = append(b.Cases, eval.CaseResult{ID: id, Kind: eval.KindRanking, Status: eval.StatusPass, ReciprocalRank: rb})
			}
		}
		add(losses, 1, 0.5)
		add(wins, 0.5, 1)
		add(2, 1, 1)
		arms := []*arm{{name: "prod", be: &app.Backend{}}, {name: "small", be: &app.Backend{}}}
		return compareDoc(eval.Set{}, arms, []armRun{{rep: a}, {rep: b}})
	}
	d := doc(11, 3)
	c := d.Comparisons[0]
	m, _ := c.Metric(eval.VerdictMetric)
	if c.Clear || m.P < 0.05 || m.PNormal > 0.05 || !strings.Contains(c.Verdict, "the interval says prod is better but the sign test does not (p = 0.06)") {
		t.Errorf("11 losses, 3 wins: clear %v, p %.3f, p_normal %.3f, verdict %s", c.Clear, m.P, m.PNormal, c.Verdict)
	}
	if err := compareExit(nil, nil, d); err != nil {
		t.Errorf("no clear difference: exit %v, want 0", err)
	}
	body, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(body), `"p":0.057`) || !strings.Contains(string(body), `"p_normal":0.032`) {
		t.Errorf("JSON %s", body)
	}
	d = doc(14, 2)
	if err := compareExit(nil, nil, d); ExitCode(err) != ExitCheck || !d.Comparisons[0].Clear {
		t.Errorf("clearly worse: exit %v, comparison %+v", err, d.Comparisons[0])
	}
}

// TestQueryVsSourcesKeepTheAnchor: two sections of one long page stay
// apart in the sources table: a long source is cut in the middle, keeping
// the end of its path and its anchor.
func TestQueryVsSourcesKeepTheAnchor(t *testing.T) {
	root := t.TempDir()
	page := filepath.Join(root, "docs", "module-with-a-rather-long-name", "chapter-about-the-kinematics-of-humanoid-legs-and-arms.md")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\ntitle: Kinematics\n---\n\n## Joint Types\n\nRevolute and prismatic joints connect the links of a humanoid leg.\n\n## Link Frames\n\nEvery link of the leg carries a frame; joints move one frame against another.\n"
	if err := os.WriteFile(page, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := setupsDir(t, "local.docs = "+strconv.Quote(filepath.Join(root, "docs"))+"\n\n[setups.bm25]\nlocal.search = \"bm25\"\n\n[setups.hybrid]\nlocal.search = \"hybrid\"\n")
	code, out, errs := run(t, map[string]string{"__DIR": dir}, "", "query", "--setup", "bm25", "--vs", "hybrid", "joints links frames of a humanoid leg")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, table, ok := strings.Cut(out, "Sources (")
	if !ok {
		t.Fatalf("no sources table:\n%s", out)
	}
	var rows []string
	for _, line := range strings.Split(table, "\n")[2:] {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, f[0])
		}
	}
	if len(rows) != 2 || rows[0] == rows[1] {
		t.Fatalf("the two sections are not two distinct rows: %q\n%s", rows, out)
	}
	for _, r := range rows {
		if !strings.Contains(r, "…") || !strings.Contains(r, "legs-and-arms.md#") || len([]rune(r)) > 72 {
			t.Errorf("source %q is not cut in the middle to 72 cells, keeping its page and anchor", r)
		}
	}
}
