package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/store/qdrant"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

// chunksReport is the part of `chunks --json` the tests read.
type chunksReport struct {
	chunkaudit.Report
	Backend BackendJSON `json:"backend"`
}

func decodeChunks(t *testing.T, out string) chunksReport {
	t.Helper()
	var r chunksReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("chunks --json: %v\n%s", err, out)
	}
	if r.Schema != chunkaudit.Schema {
		t.Fatalf("schema %q", r.Schema)
	}
	return r
}

func ids(refs ...chunkaudit.ChunkRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.ID)
	}
	return out
}

func wordList(from, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "word%d ", from+i)
	}
	return strings.TrimSpace(b.String())
}

func TestChunksDemo(t *testing.T) {
	code, out, errs := run(t, nil, "", "chunks")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Chunks: 164", "Tokens estimated", "Tokens per chunk:", "module-1-ros2", "reads every token of a chunk: none is cut", "Duplicates (identical text) (1)", "Site: 25 pages"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// Against a smaller limit: the sentence, and a report is not a gate.
	code, out, _ = run(t, nil, "", "chunks", "--limit", "300")
	if code != ExitOK || !strings.Contains(out, "chunks (") || !strings.Contains(out, "exceed ragscope-local-glove100-sif+chargram-v2's 300 tokens; ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, errs = run(t, nil, "", "chunks", "--json", "--model", "embed-english-v3.0", "--fail-on", "over-limit>0,duplicates>0")
	if code != ExitCheck || !strings.Contains(errs, "duplicates>0 (is 1)") || strings.Contains(errs, "over-limit>0") {
		t.Fatalf("fail-on: exit %d: %s", code, errs)
	}
	r := decodeChunks(t, out)
	if r.Chunks != 164 || r.Limit.Tokens != 512 || len(r.Duplicates) != 1 || r.Coverage == nil || r.Coverage.Pages != 25 || len(r.Pages) != 25 {
		t.Fatalf("report: chunks %d limit %+v dups %d pages %d", r.Chunks, r.Limit, len(r.Duplicates), len(r.Pages))
	}
	if code, _, errs := run(t, nil, "", "chunks", "--fail-on", "over-limit"); code != ExitUsage || !strings.Contains(errs, "METRIC>VALUE") {
		t.Fatalf("bad rule: exit %d: %s", code, errs)
	}
}

// TestChunksFailOnRefusesNoRuleAndNaN: an empty --fail-on or a value that is
// not a finite number is a usage error, not a gate that never fires.
func TestChunksFailOnRefusesNoRuleAndNaN(t *testing.T) {
	for _, c := range []struct{ rule, want string }{
		{"", "no rule given"},
		{" , ", "no rule given"},
		{"duplicates=NaN", "finite number"},
		{"duplicates>Inf", "finite number"},
		{"tiny>-inf", "finite number"},
	} {
		code, out, errs := run(t, nil, "", "chunks", "--fail-on", c.rule)
		if code != ExitUsage || !strings.Contains(errs, "--fail-on") || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("--fail-on %q: exit %d, out %q, err %q", c.rule, code, out, errs)
		}
	}
}

// TestChunksLocalDocs audits a local index built from a docs folder made
// to hold each finding the chunker can produce.
func TestChunksLocalDocs(t *testing.T) {
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	write := func(rel, body string) {
		p := filepath.Join(docs, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shared := wordList(0, 80)
	write("m1/long.md", "# Long page\n\n## Everything\n\n"+wordList(1000, 700)+"\n")
	write("m1/tiny.md", "# Tiny page\n\n## Short\n\nJust a few words.\n\n## Body\n\n"+wordList(3000, 60)+"\n")
	write("m2/copy-a.md", "# Copy A\n\n## Shared\n\n"+shared+"\n")
	write("m2/copy-b.md", "# Copy B\n\n## Shared\n\n"+shared+"\n")
	write("m2/near.md", "# Near\n\n## Shared\n\n"+strings.Replace(shared, "word5 ", "other ", 1)+"\n")
	// The local chunker cuts sections at 1,500 characters, under every
	// provider's limit: a limit of 150 tokens finds the long page's chunks.
	code, out, errs := run(t, nil, "", "--docs", docs, "chunks", "--json", "--model", "embed-english-v3.0", "--limit", "150")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decodeChunks(t, out)
	if r.OverLimit.Chunks < 2 || r.Limit.Tokens != 150 {
		t.Fatalf("over limit: %+v", r.OverLimit)
	}
	for _, c := range r.OverLimit.List {
		if !strings.HasSuffix(c.Page, "m1/long.md") || c.Unseen <= 0 {
			t.Fatalf("over limit: %+v", c)
		}
	}
	var tiny []string
	for _, c := range r.Tiny {
		tiny = append(tiny, c.Section)
	}
	if !slices.Contains(tiny, "Short") {
		t.Fatalf("tiny: %+v", r.Tiny)
	}
	if len(r.Duplicates) != 1 || !strings.HasSuffix(r.Duplicates[0].First.Page, "copy-a.md") || !strings.HasSuffix(r.Duplicates[0].Second.Page, "copy-b.md") {
		t.Fatalf("duplicates: %+v", r.Duplicates)
	}
	if len(r.NearDuplicates) != 1 || !strings.HasSuffix(r.NearDuplicates[0].Second.Page, "near.md") {
		t.Fatalf("near duplicates: %+v", r.NearDuplicates)
	}
	if len(r.Pages) != 5 {
		t.Fatalf("pages: %+v", r.Pages)
	}
	// Human output: the sentence, the pairs, the estimate named.
	code, out, _ = run(t, nil, "", "--docs", docs, "chunks", "--model", "embed-english-v3.0")
	for _, want := range []string{"0 chunks (0%) exceed embed-english-v3.0's 512 tokens.", "Near-duplicates (1)", "Tokens estimated", "copy-b.md § Shared"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("exit %d, missing %q:\n%s", code, want, out)
		}
	}
}

// chunkFixture is a collection built to hold every finding, and a site
// with a page no chunk comes from and a heading no chunk covers.
func chunkFixture(t *testing.T) (map[string]string, *qdranttest.Server, string) {
	t.Helper()
	qs, _, env := fakes(t)
	vec := make([]float32, 1024)
	vec[0] = 1
	pt := func(id uint64, docPath, section, text string, extra ...string) qdranttest.Point {
		p := map[string]*qc.Value{"doc_path": qc.NewValueString(docPath), "section_title": qc.NewValueString(section), "chunk_index": qc.NewValueInt(int64(id)), "big_blob": qc.NewValueString(strings.Repeat("x", 1000))}
		if text != "\x00" {
			p["text"] = qc.NewValueString(text)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			p[extra[i]] = qc.NewValueString(extra[i+1])
		}
		return qdranttest.Point{ID: id, Vector: vec, Payload: p}
	}
	shared := wordList(0, 60)
	qs.AddCollection(qdranttest.Collection{Name: "audit", Dim: 1024, Points: []qdranttest.Point{
		pt(1, "docs/intro.md", "Welcome", wordList(100, 40)),
		pt(2, "docs/guide.md", "Install", wordList(200, 800)),
		pt(3, "docs/guide.md", "Usage", "## Usage"),
		pt(4, "docs/guide.md", "Usage", "\x00"),
		pt(5, "docs/intro.md", "Welcome", shared),
		pt(6, "docs/guide.md", "Install", shared),
		pt(7, "docs/guide.md", "Install", strings.Replace(shared, "word9 ", "else ", 1)),
	}})
	site := t.TempDir()
	for rel, body := range map[string]string{
		"docs/intro.md":  "# Intro\n\n## Welcome\n\nHello there.\n",
		"docs/guide.md":  "# Guide\n\n## Install\n\nSteps.\n\n## Usage\n\nUse it.\n\n## Troubleshooting\n\nWhen it breaks.\n",
		"docs/unused.md": "# Unused\n\nNever ingested.\n",
	} {
		p := filepath.Join(site, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return with(env, "QDRANT_COLLECTION", "audit"), qs, site
}

func TestChunksQdrant(t *testing.T) {
	env, _, site := chunkFixture(t)
	code, out, errs := run(t, env, "", "chunks", "--json", "--site", site)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	assertNoSecrets(t, out, errs)
	r := decodeChunks(t, out)
	if r.Chunks != 7 || r.Limit.Model != "embed-english-v3.0" || r.Limit.Tokens != 512 {
		t.Fatalf("chunks %d limit %+v", r.Chunks, r.Limit)
	}
	if got := ids(chunkRefs(r.OverLimit.List)...); !slices.Equal(got, []string{"2"}) {
		t.Fatalf("over limit: %v", got)
	}
	if len(r.Tiny) != 1 || r.Tiny[0].ID != "3" || r.Tiny[0].Reason != "heading only" {
		t.Fatalf("tiny: %+v", r.Tiny)
	}
	if got := ids(r.Empty...); !slices.Equal(got, []string{"4"}) {
		t.Fatalf("empty: %v", got)
	}
	if len(r.Duplicates) != 1 || r.Duplicates[0].First.ID != "5" || r.Duplicates[0].Second.ID != "6" || r.Duplicates[0].SamePage {
		t.Fatalf("duplicates: %+v", r.Duplicates)
	}
	if len(r.NearDuplicates) != 1 || r.NearDuplicates[0].Second.ID != "7" {
		t.Fatalf("near duplicates: %+v", r.NearDuplicates)
	}
	cov := r.Coverage
	if cov == nil || len(cov.PagesWithoutChunks) != 1 || cov.PagesWithoutChunks[0].Source != "docs/unused.md" {
		t.Fatalf("pages without chunks: %+v", cov)
	}
	if len(cov.HeadingsWithoutChunks) != 1 || cov.HeadingsWithoutChunks[0].Anchor != "troubleshooting" {
		t.Fatalf("headings without chunks: %+v", cov.HeadingsWithoutChunks)
	}
	code, _, errs = run(t, env, "", "chunks", "--site", site, "--fail-on", "pages-without-chunks>0,headings-without-chunks>5")
	if code != ExitCheck || !strings.Contains(errs, "pages-without-chunks>0 (is 1)") || strings.Contains(errs, "headings-without") {
		t.Fatalf("fail-on: exit %d: %s", code, errs)
	}
}

// TestChunksQdrantReadsOnlyNeededFields: past the first page (read whole
// to detect the mapping), the scan asks only for the payload keys the
// audit reads, and sends only read RPCs.
func TestChunksQdrantReadsOnlyNeededFields(t *testing.T) {
	qs, _, env := fakes(t)
	vec := make([]float32, 1024)
	pts := make([]qdranttest.Point, 2500)
	for i := range pts {
		pts[i] = qdranttest.Point{ID: uint64(i + 1), Vector: vec, Payload: map[string]*qc.Value{
			"content": qc.NewValueString(wordList(i*30, 30)), "source_file": qc.NewValueString(fmt.Sprintf("docs/p%d.md", i/10)),
			"big_blob": qc.NewValueString(strings.Repeat("x", 1000)),
		}}
	}
	qs.AddCollection(qdranttest.Collection{Name: "wide", Dim: 1024, Points: pts})
	qs.ResetCalls()
	code, out, errs := run(t, with(env, "QDRANT_COLLECTION", "wide"), "", "chunks", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r := decodeChunks(t, out); r.Chunks != 2500 || len(r.Pages) != 250 || len(r.Empty) != 0 {
		t.Fatalf("chunks %d pages %d empty %d", r.Chunks, len(r.Pages), len(r.Empty))
	}
	for _, c := range qs.Calls() {
		if !slices.Contains(qdranttest.ReadOnlyMethods, c) {
			t.Errorf("non-read call %s", c)
		}
	}
	fields := qs.ScrollFields()
	if len(fields) != 3 || fields[0] != nil {
		t.Fatalf("scrolls asked for %q", fields)
	}
	for _, f := range fields[1:] {
		if slices.Contains(f, "big_blob") || !slices.Contains(f, "content") || !slices.Contains(f, "source_file") {
			t.Fatalf("a page asked for payload %q", f)
		}
	}
}

func chunkRefs(l []chunkaudit.OverChunk) []chunkaudit.ChunkRef {
	var out []chunkaudit.ChunkRef
	for _, c := range l {
		out = append(out, c.ChunkRef)
	}
	return out
}

func TestChunksQdrantWithoutTextField(t *testing.T) {
	qs, _, env := fakes(t)
	vec := make([]float32, 1024)
	qs.AddCollection(qdranttest.Collection{Name: "bodies", Dim: 1024, Points: []qdranttest.Point{
		{ID: 1, Vector: vec, Payload: map[string]*qc.Value{"body": qc.NewValueString("the text lives here"), "doc_path": qc.NewValueString("docs/a.md")}},
	}})
	code, out, errs := run(t, with(env, "QDRANT_COLLECTION", "bodies"), "", "chunks")
	if code != ExitConfig || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"no payload field holds the chunk text", "body", "[mapping] text"} {
		if !strings.Contains(errs, want) {
			t.Errorf("missing %q in %q", want, errs)
		}
	}
}

// TestChunksInterrupted: Ctrl+C mid-scan exits 130 and prints no report.
func TestChunksInterrupted(t *testing.T) {
	qs, _, env := fakes(t)
	vec := make([]float32, 1024)
	pts := make([]qdranttest.Point, 5000)
	for i := range pts {
		pts[i] = qdranttest.Point{ID: uint64(i + 1), Vector: vec, Payload: map[string]*qc.Value{"text": qc.NewValueString(wordList(i, 20))}}
	}
	qs.AddCollection(qdranttest.Collection{Name: "big", Dim: 1024, Points: pts})
	env = with(env, "QDRANT_COLLECTION", "big")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb strings.Builder
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	// Every call takes a while, so the scan cannot end before the cancel;
	// cancel once the scan has asked for its first page.
	qs.SetLatency(20 * time.Millisecond)
	go func() {
		for {
			for _, f := range qs.ScrollFields() {
				if slices.Contains(f, "text") {
					qs.SetLatency(time.Hour)
					cancel()
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	code := app.Run(ctx, []string{"chunks", "--json"})
	if code != ExitInterrupted || out.String() != "" || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// BenchmarkChunksScroll50k is `ragscope chunks --json` on a 50,000-point
// collection of the in-process Qdrant answering every call 50 ms late:
// the budget is 1.3× the latency of the 50 scroll calls of 1,000 points
// (floor-ratio ≤ 1.3; calls/run is 51: the 50 pages and a count asked
// beside the first) and memory under 200 MB (live-heap-MB: what the
// command holds, without the in-process server's copy of the collection).
func BenchmarkChunksScroll50k(b *testing.B) { benchmarkChunksScroll(b, 50_000) }

// BenchmarkChunksScroll100k is the same on 100,000 points: the audit
// streams the collection, so its memory stays under the 200 MB budget
// (the benchmark fails above it) while the text it reads is about 90 MB.
func BenchmarkChunksScroll100k(b *testing.B) { benchmarkChunksScroll(b, 100_000) }

func benchmarkChunksScroll(b *testing.B, points int) {
	const latency = 50 * time.Millisecond
	qdrant.SilenceGRPCLogs(nil)
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: testQdrantKey})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(qs.Close)
	co := coheretest.NewServer(testCohereKey)
	b.Cleanup(co.Close)
	vocab := strings.Fields("the robot node topic service launch parameter frame joint sensor camera lidar map plan path goal action model policy reward train simulate world physics controller torque motor message publish subscribe")
	vec := make([]float32, coheretest.Dim)
	vec[0] = 1
	pts := make([]qdranttest.Point, points)
	for i := range pts {
		var t strings.Builder
		for j := range 150 {
			t.WriteString(vocab[(i*7+j*13+j*j)%len(vocab)])
			t.WriteByte(' ')
		}
		fmt.Fprintf(&t, "chunk %d", i)
		pts[i] = qdranttest.Point{ID: uint64(i + 1), Vector: vec, Payload: map[string]*qc.Value{
			"text": qc.NewValueString(t.String()), "doc_path": qc.NewValueString(fmt.Sprintf("docs/m%d/p%d.md", i%8, i/20)),
			"section_title": qc.NewValueString(fmt.Sprintf("Section %d", i%20)), "chunk_index": qc.NewValueInt(int64(i % 20)),
			"module": qc.NewValueString(fmt.Sprintf("m%d", i%8)),
		}}
	}
	qs.AddCollection(qdranttest.Collection{Name: "big", Dim: coheretest.Dim, Points: pts})
	pts = nil
	env := map[string]string{
		"QDRANT_URL": qs.URL(), "QDRANT_API_KEY": testQdrantKey, "QDRANT_COLLECTION": "big",
		"COHERE_API_KEY": testCohereKey, "COHERE_BASE_URL": co.URL,
	}
	qs.SetLatency(latency)
	runOnce := func() time.Duration {
		var out, errb strings.Builder
		app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: b.TempDir(),
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		t0 := time.Now()
		code := app.Run(context.Background(), []string{"chunks", "--json"})
		took := time.Since(t0)
		if code != ExitOK || !strings.Contains(out.String(), fmt.Sprintf(`"chunks": %d`, points)) {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		return took
	}
	var spent time.Duration
	qs.ResetCalls()
	served := qs.ServerTime()
	b.ResetTimer()
	for range b.N {
		spent += runOnce()
	}
	b.StopTimer()
	calls := len(qs.Calls())
	per := spent / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "ms/run")
	b.ReportMetric(float64(per)/float64(time.Duration(points/qdrant.ScrollPage)*latency), "floor-ratio")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/run")
	// The fake server's own work (answering the scrolls), on the same
	// two cores: part of every page's round trip.
	b.ReportMetric(float64((qs.ServerTime()-served).Milliseconds())/float64(b.N), "server-ms/run")

	// Memory, on one more run: the live heap (after a collection, sampled
	// every 50 ms) over the heap before the run, which holds the
	// in-process server's copy of the collection.
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	runOnce()
	close(stop)
	<-sampled
	live := float64(peak-min(peak, base.HeapAlloc)) / (1 << 20)
	b.ReportMetric(live, "live-heap-MB")
	if live > 200 {
		b.Errorf("chunks held %.0f MB of heap on %d points: over the 200 MB budget (is it keeping every text?)", live, points)
	}
}

// TestIndexWarnsOverLimit: index --model warns when chunks are longer
// than the model reads, says nothing when none is, and says how to check
// a model it does not know.
func TestIndexWarnsOverLimit(t *testing.T) {
	docs := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Page\n\n## Part\n\n"+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "book.idx")
	write(wordList(5000, 100))
	code, _, errs := run(t, nil, "", "index", docs, "-o", idx, "--model", "embed-english-v3.0")
	if code != ExitOK || strings.Contains(errs, "warning") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, errs = run(t, nil, "", "index", docs, "-o", idx, "--model", "some-embedder")
	if code != ExitOK || !strings.Contains(errs, "input limit of some-embedder is not known") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A list of 480 one-letter items: about 960 tokens in 1,440 characters,
	// under the chunker's 1,500 but over Cohere's 512.
	write(strings.Repeat("a, ", 480))
	code, _, errs = run(t, nil, "", "index", docs, "-o", idx, "--model", "embed-english-v3.0")
	if code != ExitOK || !strings.Contains(errs, "warning: 1 chunk (100%) exceeds embed-english-v3.0's 512 tokens (tokens estimated)") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The saved index is audited from its own chunks.
	code, out, errs := run(t, nil, "", "--index", idx, "chunks", "--json", "--model", "embed-english-v3.0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r := decodeChunks(t, out); r.Chunks != 1 || r.OverLimit.Chunks != 1 || r.OverLimit.List[0].Unseen < 400 {
		t.Fatalf("over limit: %+v", r.OverLimit)
	}
}

func TestChunksQdrantFaults(t *testing.T) {
	qs, _, env := fakes(t)
	code, out, errs := run(t, with(env, "QDRANT_COLLECTION", "nope"), "", "chunks")
	if code != ExitBackend || out != "" || !strings.Contains(errs, "nope") {
		t.Fatalf("missing collection: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, with(env, "QDRANT_API_KEY", "wrong-key"), "", "chunks")
	if code != ExitBackend || strings.Contains(errs, "wrong-key") {
		t.Fatalf("refused key: exit %d: %s", code, errs)
	}
	qs.Close()
	if code, _, errs = run(t, env, "", "--timeout", "2s", "chunks"); code != ExitBackend {
		t.Fatalf("server down: exit %d: %s", code, errs)
	}
}

// index runs the chunk audit on what it built: the same page twice (a
// duplicate) is said in a note pointing at 'ragscope chunks', with or
// without --model.
func TestIndexNotesDuplicateChunks(t *testing.T) {
	docs := t.TempDir()
	body := "# Page\n\n## Balance\n\n" + wordList(200, 100) + "\n"
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "book.idx")
	code, _, errs := run(t, nil, "", "index", docs, "-o", idx)
	if code != ExitOK || !strings.Contains(errs, "note: ") || !strings.Contains(errs, "repeat") || !strings.Contains(errs, "'ragscope --index "+idx+" chunks' lists them") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// The chunk audit tells the chunker from the book: each tiny chunk with
// its class, its maker and its first characters, in text and --json.
func TestChunksTinyClasses(t *testing.T) {
	docs := writeModulesBook(t)
	code, out, errs := run(t, nil, "", "chunks", "--docs", docs, "--max-list", "0")
	if code != ExitOK || !strings.Contains(out, "short section (the book's)\n    \"# Gazebo Gazebo simulates physics for robots.\"") ||
		!strings.Contains(out, "made by ragscope's chunker (heading only, separator, code remnant)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, nil, "", "chunks", "--docs", docs, "--json")
	var r chunkaudit.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK || len(r.Tiny) == 0 || r.Chunker != "ragscope" {
		t.Fatalf("exit %d, %v: %+v", code, err, r)
	}
	for _, c := range r.Tiny {
		if c.Class != chunkaudit.ClassShortSection || c.ByChunker || c.Start == "" {
			t.Errorf("tiny %+v", c)
		}
	}
}
