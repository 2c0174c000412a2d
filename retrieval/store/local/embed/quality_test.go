package embed

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// smallCorpus returns twelve short robotics paragraphs and one paraphrased
// question per paragraph. Each question shares at most one to three content
// words with its paragraph, as a student's question typically does.
func smallCorpus() ([]string, []devQuery) {
	docs := []string{
		// 0
		"In ROS 2, nodes exchange data over named topics. A publisher sends messages of a fixed type, and any number of subscribers receive them asynchronously. This decoupled publish-subscribe pattern lets a camera driver stream images while several processing nodes consume them independently.",
		// 1
		"Actions suit long-running goals such as driving to a pose. The client sends a goal, the server streams periodic feedback while it works, and the client may cancel before a final result arrives. Services, by contrast, are a single blocking request and response.",
		// 2
		"The Unified Robot Description Format describes a robot as a tree of links connected by joints. Each link carries visual meshes, collision shapes and inertial properties such as mass, while each joint states its type, axis and limits. Xacro macros keep these XML files short.",
		// 3
		"Gazebo is a physics simulator that lets you test controllers in a virtual world before touching real hardware. It models gravity, friction and contact, and plugins emulate cameras, lidars and IMUs so the same ROS 2 nodes run unchanged against simulated sensors.",
		// 4
		"NVIDIA Isaac Sim renders photorealistic scenes on the GPU. With domain randomization it varies textures, lighting and object placement across thousands of frames, producing labelled synthetic images for training perception networks that transfer better to reality.",
		// 5
		"Simultaneous localization and mapping lets a mobile base build a map of an unknown building while estimating its own position inside that map. Laser scans or camera features are matched over time, and loop closure corrects accumulated drift when a place is revisited.",
		// 6
		"Nav2 is the navigation stack for ROS 2. A global planner computes a route across the costmap, a local controller follows it while avoiding obstacles, and behavior trees decide when to replan or run recovery behaviors if the robot gets stuck.",
		// 7
		"Vision-language-action models map a camera image and a natural-language instruction directly to motor commands. Trained on large collections of robot demonstrations, models such as RT-2 reuse knowledge from web-scale pretraining to follow requests they never saw during training.",
		// 8
		"Bipedal humanoids stay upright by keeping the zero moment point inside the support polygon formed by the feet. Walking controllers plan footsteps and shift the center of mass so that the ground reaction force never tips the body over.",
		// 9
		"A PID controller computes a correction from the error between the desired and measured value: the proportional term reacts to the present error, the integral term removes steady offset, and the derivative term damps overshoot. Gains are tuned to trade speed against stability.",
		// 10
		"Policies trained only in simulation often fail on hardware because of the reality gap: unmodelled friction, sensor noise, latency and actuator limits. Randomizing dynamics parameters during training and fine-tuning on a few real trials help close this gap.",
		// 11
		"In reinforcement learning an agent improves its behaviour by trial and error, receiving a scalar reward after each action. Designing the reward carefully matters: a walking policy rewarded only for forward speed may learn to fall forward repeatedly.",
	}
	queries := []devQuery{
		{"How do separate ROS programs share a continuous flow of camera frames?", 0},
		{"What should I use for a long task that reports progress and can be cancelled?", 1},
		{"Which XML file describes how the arm's parts are attached and how heavy they are?", 2},
		{"Can I test my code in a simulator instead of on the physical machine?", 3},
		{"How can I generate lots of labelled training pictures without photographing real objects?", 4},
		{"How does a robot figure out its position while exploring a new building?", 5},
		{"What software drives a robot between rooms without bumping into obstacles?", 6},
		{"Can a neural network turn a typed instruction like 'pick up the apple' straight into arm movements?", 7},
		{"Why doesn't a two-legged humanoid fall over when it walks?", 8},
		{"How do I tune a controller so the motor reaches its target angle quickly without oscillating?", 9},
		{"Why does a skill learned in simulation break on the actual robot hardware?", 10},
		{"How does a robot learn new skills by trying things and getting a reward?", 11},
	}
	return docs, queries
}

// hardParaphrases returns questions for smallCorpus's paragraphs that share
// almost no content word with them; only meaning links them.
func hardParaphrases() []devQuery {
	return []devQuery{
		{"How do separate programs on a robot share a continuous flow of sensor readings?", 0},
		{"What should I use for a job that takes a while, reports progress and can be aborted?", 1},
		{"Which file tells the software how the arm's parts are attached and how heavy they are?", 2},
		{"Can I try my code on a pretend version of the machine instead of the physical one?", 3},
		{"How can I generate lots of annotated training pictures without photographing real objects?", 4},
		{"How does a robot figure out where it is while exploring a new place?", 5},
		{"What software moves a wheeled robot from one room to another without bumping into things?", 6},
		{"Can a neural network turn a typed request like 'pick up the apple' straight into arm movements?", 7},
		{"Why doesn't a two-legged robot fall over when it walks?", 8},
		{"How do I make a motor reach its target angle quickly without oscillating?", 9},
		{"Why does a skill learned in a virtual environment break on the actual robot?", 10},
		{"How does a robot learn a skill by trying things and getting scores?", 11},
	}
}

// ranker embeds a corpus and returns, for a question, the corpus indices
// ordered from best to worst.
type ranker interface {
	rank(q string) []int
}

// evalResult summarises a ranker on a question set.
type evalResult struct {
	top1, total int
	mrr         float64
	misses      []string
}

func evaluate(t testing.TB, r ranker, queries []devQuery) evalResult {
	t.Helper()
	res := evalResult{total: len(queries)}
	for _, q := range queries {
		order := r.rank(q.q)
		for pos, d := range order {
			if d == q.doc {
				res.mrr += 1 / float64(pos+1)
				if pos == 0 {
					res.top1++
				} else {
					res.misses = append(res.misses, q.q)
				}
				break
			}
		}
	}
	res.mrr /= float64(len(queries))
	return res
}

// modelRanker ranks by the model's cosine.
type modelRanker struct {
	m    *Model
	docs [][]float32
}

func newModelRanker(t testing.TB, docs []string, cfg config) *modelRanker {
	t.Helper()
	m := newWithConfig(docs, cfg)
	vecs, err := m.Embed(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return &modelRanker{m: m, docs: vecs}
}

func (r *modelRanker) scores(q string) []float32 {
	qv, err := r.m.Embed(context.Background(), []string{q})
	if err != nil {
		panic(err)
	}
	out := make([]float32, len(r.docs))
	for i, d := range r.docs {
		out[i] = dot(qv[0], d)
	}
	return out
}

func (r *modelRanker) rank(q string) []int { return order(r.scores(q)) }

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// order returns indices by descending score, ties by index.
func order(scores []float32) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
}

// bowRanker is the baseline: exact (unhashed) TF-IDF over lowercased word
// unigrams, the same stopwords removed, sublinear tf, cosine similarity.
type bowRanker struct {
	idf  map[string]float64
	docs []map[string]float64
}

func bowWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) > 1 && !isStopword(w) {
			out = append(out, w)
		}
	}
	return out
}

func newBowRanker(docs []string) *bowRanker {
	r := &bowRanker{idf: map[string]float64{}}
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range bowWords(d) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	n := float64(len(docs))
	for w, c := range df {
		r.idf[w] = math.Log((n+1)/(float64(c)+1)) + 1
	}
	for _, d := range docs {
		r.docs = append(r.docs, r.vector(d))
	}
	return r
}

func (r *bowRanker) vector(s string) map[string]float64 {
	tf := map[string]float64{}
	for _, w := range bowWords(s) {
		tf[w]++
	}
	v := map[string]float64{}
	var n float64
	for w, c := range tf {
		x := (1 + math.Log(c)) * r.idf[w]
		v[w] = x
		n += x * x
	}
	for w := range v {
		v[w] /= math.Sqrt(n)
	}
	return v
}

func (r *bowRanker) rank(q string) []int {
	qv := r.vector(q)
	scores := make([]float32, len(r.docs))
	for i, d := range r.docs {
		var s float64
		for w, x := range qv {
			s += x * d[w]
		}
		scores[i] = float32(s)
	}
	return order(scores)
}

func TestRetrievalSmallCorpus(t *testing.T) {
	docs, queries := smallCorpus()
	model := evaluate(t, newModelRanker(t, docs, defaultConfig()), queries)
	base := evaluate(t, newBowRanker(docs), queries)
	t.Logf("model: top-1 %d/%d, MRR %.3f; misses %q", model.top1, model.total, model.mrr, model.misses)
	t.Logf("bag-of-words baseline: top-1 %d/%d, MRR %.3f; misses %q", base.top1, base.total, base.mrr, base.misses)
	if model.top1 < 10 {
		t.Errorf("model ranks the right paragraph first for %d of %d questions, want at least 10", model.top1, model.total)
	}
	if model.top1 < base.top1 || model.mrr < base.mrr {
		t.Errorf("model (top-1 %d, MRR %.3f) is worse than the bag-of-words baseline (top-1 %d, MRR %.3f)",
			model.top1, model.mrr, base.top1, base.mrr)
	}
}

func TestRetrievalHardParaphrases(t *testing.T) {
	docs, _ := smallCorpus()
	queries := hardParaphrases()
	model := evaluate(t, newModelRanker(t, docs, defaultConfig()), queries)
	base := evaluate(t, newBowRanker(docs), queries)
	t.Logf("model: top-1 %d/%d, MRR %.3f; misses %q", model.top1, model.total, model.mrr, model.misses)
	t.Logf("bag-of-words baseline: top-1 %d/%d, MRR %.3f", base.top1, base.total, base.mrr)
	if model.top1 <= base.top1 || model.mrr <= base.mrr {
		t.Errorf("model (top-1 %d, MRR %.3f) does not beat the bag-of-words baseline (top-1 %d, MRR %.3f) on meaning-only paraphrases",
			model.top1, model.mrr, base.top1, base.mrr)
	}
}

func TestRetrievalDevCorpus(t *testing.T) {
	docs, queries := devCorpus()
	model := evaluate(t, newModelRanker(t, docs, defaultConfig()), queries)
	base := evaluate(t, newBowRanker(docs), queries)
	t.Logf("model: top-1 %d/%d, MRR %.3f; misses %q", model.top1, model.total, model.mrr, model.misses)
	t.Logf("bag-of-words baseline: top-1 %d/%d, MRR %.3f; misses %q", base.top1, base.total, base.mrr, base.misses)
	if model.mrr < base.mrr {
		t.Errorf("model MRR %.3f is below the bag-of-words baseline's %.3f", model.mrr, base.mrr)
	}
}

// TestScoreRanges reports the scores a user sees and checks that questions
// about things the corpus never mentions score below typical on-topic hits.
func TestScoreRanges(t *testing.T) {
	docs, queries := devCorpus()
	r := newModelRanker(t, docs, defaultConfig())
	var right []float64
	for _, q := range queries {
		right = append(right, float64(r.scores(q.q)[q.doc]))
	}
	sort.Float64s(right)
	offTopic := []string{
		"How do I bake sourdough bread at home?",
		"Who won the football world cup in 1998?",
		"What is the capital of France?",
		"Which wine goes well with fish?",
	}
	var worst float64
	for _, q := range offTopic {
		s := r.scores(q)
		top := float64(s[order(s)[0]])
		t.Logf("off-topic %q: top score %.3f", q, top)
		worst = max(worst, top)
	}
	median := right[len(right)/2]
	t.Logf("score of the right chunk: min %.3f, quartiles %.3f %.3f %.3f, max %.3f",
		right[0], right[len(right)/4], median, right[3*len(right)/4], right[len(right)-1])
	if median <= worst {
		t.Errorf("median score of the right chunk %.3f is not above the best off-topic score %.3f", median, worst)
	}
}

// TestTuning compares configurations on both corpora. It only runs with
// RAGSCOPE_EMBED_TUNE=1; it guided the choice of defaultConfig.
func TestTuning(t *testing.T) {
	if os.Getenv("RAGSCOPE_EMBED_TUNE") == "" {
		t.Skip("set RAGSCOPE_EMBED_TUNE=1 to compare configurations")
	}
	type variant struct {
		name string
		edit func(*config)
	}
	variants := []variant{
		{"default", func(*config) {}},
		{"semantic part only", func(c *config) { c.gloveShare = 1 }},
		{"lexical part only", func(c *config) { c.gloveShare = 0 }},
		{"hashed lexical, no projection", func(c *config) { c.noProjection = true }},
		{"no common component removal", func(c *config) { c.removePC = false }},
	}
	sd, sq := smallCorpus()
	hq := hardParaphrases()
	dd, dq := devCorpus()
	if n, _ := strconv.Atoi(os.Getenv("RAGSCOPE_EMBED_DISTRACTORS")); n > 0 {
		extra := goDocParagraphs(t, n)
		t.Logf("%d distractors", len(extra))
		sd = append(sd, extra...)
		dd = append(dd, extra...)
	}
	for _, v := range variants {
		cfg := defaultConfig()
		v.edit(&cfg)
		sr := newModelRanker(t, sd, cfg)
		s := evaluate(t, sr, sq)
		h := evaluate(t, sr, hq)
		d := evaluate(t, newModelRanker(t, dd, cfg), dq)
		t.Logf("%-30s small %2d/%d %.3f | hard %2d/%d %.3f | dev %2d/%d %.3f", v.name, s.top1, s.total, s.mrr, h.top1, h.total, h.mrr, d.top1, d.total, d.mrr)
	}
	br := newBowRanker(sd)
	s := evaluate(t, br, sq)
	h := evaluate(t, br, hq)
	d := evaluate(t, newBowRanker(dd), dq)
	t.Logf("%-30s small %2d/%d %.3f | hard %2d/%d %.3f | dev %2d/%d %.3f", "bag-of-words", s.top1, s.total, s.mrr, h.top1, h.total, h.mrr, d.top1, d.total, d.mrr)
}

// goDocParagraphs returns up to n comment paragraphs of at least 40 words
// from the Go standard library's sources, in a fixed order: off-topic
// distractors that share words such as "node", "message" and "client" with
// the robotics corpus. Tuning only.
func goDocParagraphs(t testing.TB, n int) []string {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	var out []string
	for _, dir := range []string{"net/http", "os", "io", "context", "sync", "encoding/json", "text/template", "go/ast", "database/sql", "crypto/tls", "image", "math/big", "runtime", "testing"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var para []string
			flush := func() {
				if len(strings.Fields(strings.Join(para, " "))) >= 40 {
					out = append(out, strings.Join(para, " "))
				}
				para = nil
			}
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "//") && len(line) > 3 {
					para = append(para, strings.TrimSpace(strings.TrimPrefix(line, "//")))
					continue
				}
				flush()
			}
			if len(out) >= n {
				return out[:n]
			}
		}
	}
	return out
}
