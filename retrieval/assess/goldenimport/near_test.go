package goldenimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragscope/internal/editdist"
	"ragscope/internal/textnorm"
)

// dedupPairwise is the near-duplicate pass by definition: each question
// compared with every kept question of a length in its window, the
// shortest length first. Dedup must find what it finds.
func dedupPairwise(qs []Question) ([]Question, []Drop) {
	var out []Question
	var drops []Drop
	exact := map[string]Question{}
	byNorm := map[string]Question{}
	byLen := map[int][]entry{}
	for _, q := range qs {
		if first, ok := exact[q.Text]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonExact, Of: first})
			continue
		}
		exact[q.Text] = q
		norm := textnorm.Normalize(q.Text)
		joined := "\x00" + strings.ReplaceAll(norm, " ", "")
		if first, ok := byNorm[norm]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		if first, ok := byNorm[joined]; ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		rs := []rune(norm)
		e := entry{q: q, norm: norm, n: len(rs), sig: newSignature(rs), digits: numbers(norm)}
		if first, ok := nearestPairwise(byLen, &e); ok {
			drops = append(drops, Drop{Question: q, Reason: ReasonNear, Of: first})
			continue
		}
		byNorm[norm], byNorm[joined] = q, q
		byLen[e.n] = append(byLen[e.n], e)
		out = append(out, q)
	}
	return out, drops
}

func nearestPairwise(byLen map[int][]entry, e *entry) (Question, bool) {
	n := e.n
	for l := n - n/NearDivisor; l <= n+n/(NearDivisor-1)+1; l++ {
		d := max(n, l) / NearDivisor
		if d == 0 || abs(l-n) > d {
			continue
		}
		for i := range byLen[l] {
			if k := &byLen[l][i]; k.digits == e.digits && e.sig.diff(k.sig) <= 4*d && editdist.Within(k.norm, e.norm, d) && typos(strings.Fields(k.norm), strings.Fields(e.norm)) {
				return k.q, true
			}
		}
	}
	return Question{}, false
}

// samePairwise fails t unless Dedup keeps and drops what dedupPairwise
// does; it returns them.
func samePairwise(t *testing.T, qs []Question) ([]Question, []Drop) {
	t.Helper()
	wantKept, wantDrops := dedupPairwise(qs)
	kept, drops, err := Dedup(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept, wantKept) || !reflect.DeepEqual(drops, wantDrops) {
		t.Fatalf("kept %d, dropped %d; the pairwise pass %d, %d", len(kept), len(drops), len(wantKept), len(wantDrops))
	}
	return kept, drops
}

// typo makes up to edits random edits (insert, delete, substitute) to
// the letters of s.
func typo(r *rand.Rand, s string, edits int) string {
	rs := []rune(s)
	for range edits {
		if len(rs) == 0 {
			break
		}
		i := r.IntN(len(rs))
		c := rune('a' + r.IntN(26))
		switch r.IntN(3) {
		case 0:
			rs = append(rs[:i], append([]rune{c}, rs[i:]...)...)
		case 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs[i] = c
		}
	}
	return string(rs)
}

// questionLog makes n questions as a chatbot log holds them: a few
// templates and topics, numbers, case and punctuation, many repeated
// with typos (so near duplicates of every kind, and many questions a few
// edits apart that are not).
func questionLog(seed uint64, n int) []Question {
	r := rand.New(rand.NewPCG(seed, 1))
	templates := []string{
		"How do I %s %s on Ubuntu?", "What is %s %s?", "Why does %s fail with %s", "%s %s", "Can I %s the %s in chapter %d?",
		"how to %s %s", "Where is %s explained, and %s?", "%s the %s of ROS %d",
	}
	words := []string{"install", "ROS", "gazebo", "tune", "the controller", "a URDF", "lidar", "SLAM", "Isaac Sim", "balance",
		"nav2", "launch", "test", "debug", "simulate", "joint limits", "vision", "grasping", "calibrate", "camera", "tf", "rl", "gait", "instal"}
	var qs []Question
	for len(qs) < n {
		var text string
		if len(qs) > 0 && r.IntN(3) == 0 {
			text = qs[r.IntN(len(qs))].Text
			switch r.IntN(4) {
			case 0:
				text = strings.ToUpper(text)
			case 1:
				text = strings.ReplaceAll(text, " ", "  ") + "?!"
			default:
				text = typo(r, text, 1+r.IntN(4))
			}
		} else {
			t := templates[r.IntN(len(templates))]
			args := []any{words[r.IntN(len(words))], words[r.IntN(len(words))]}
			if strings.Count(t, "%") == 3 {
				args = append(args, r.IntN(4))
			}
			text = fmt.Sprintf(t, args...)
			if r.IntN(4) == 0 {
				text = typo(r, text, r.IntN(3))
			}
		}
		if text = clean(text); text != "" {
			qs = append(qs, Question{Text: text, Line: len(qs) + 1})
		}
	}
	return qs
}

// TestDedupIsThePairwisePass: on logs of many near and not-quite-near
// questions, Dedup keeps and drops exactly what comparing every pair
// does, each drop naming the same earlier question.
func TestDedupIsThePairwisePass(t *testing.T) {
	for seed := range uint64(20) {
		qs := questionLog(seed, 1500)
		wantKept, wantDrops := dedupPairwise(qs)
		kept, drops, err := Dedup(context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(kept, wantKept) {
			t.Fatalf("seed %d: kept %d questions, the pairwise pass %d", seed, len(kept), len(wantKept))
		}
		if !reflect.DeepEqual(drops, wantDrops) {
			for i := range min(len(drops), len(wantDrops)) {
				if drops[i] != wantDrops[i] {
					t.Fatalf("seed %d: drop %d is %+v, the pairwise pass's %+v", seed, i, drops[i], wantDrops[i])
				}
			}
			t.Fatalf("seed %d: %d drops, the pairwise pass %d", seed, len(drops), len(wantDrops))
		}
		if seed == 0 && (len(wantDrops) < 300 || len(wantKept) < 300) {
			t.Fatalf("the log is not a test: %d kept, %d dropped", len(wantKept), len(wantDrops))
		}
	}
}

// TestDedupLongQuestions: long questions (many edits allowed, many
// segments) are found as the pairwise pass finds them.
func TestDedupLongQuestions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	base := "When I launch the simulation of the two-legged robot with the default controller, the robot falls after a few steps"
	var qs []Question
	for i := range 400 {
		text := base
		if i%5 != 0 {
			text = typo(r, base+" "+strings.Repeat("and again ", r.IntN(3)), r.IntN(16))
		}
		qs = append(qs, Question{Text: clean(text), Line: i + 1})
	}
	if kept, drops := samePairwise(t, qs); len(drops) < 50 || len(kept) < 50 {
		t.Fatalf("not a test: %d kept, %d dropped", len(kept), len(drops))
	}
}

// TestDedupCrowdedSegment: when thousands of kept questions share a
// template (so its segments' buckets exceed what one question compares),
// a typo of one of them is still found through the segment only it has.
func TestDedupCrowdedSegment(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	word := func() string {
		b := make([]byte, 9)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var qs []Question
	for i := range 4000 {
		qs = append(qs, Question{Text: "How do I configure the part called " + word() + " on my robot", Line: i + 1})
	}
	target := qs[17].Text
	qs = append(qs, Question{Text: strings.Replace(target, "called ", "caled ", 1), Line: len(qs) + 1})
	kept, drops, err := Dedup(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 4000 || len(drops) != 1 || drops[0].Of.Text != target {
		t.Fatalf("kept %d, drops %+v; want the last line dropped as a near duplicate of line 18", len(kept), drops)
	}
}

// TestDedupCancelled: a cancelled context stops Import and Dedup with its
// error and no questions.
func TestDedupCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	qs := questionLog(1, 3*checkEvery)
	kept, drops, err := Dedup(ctx, qs)
	if !errors.Is(err, context.Canceled) || kept != nil || drops != nil {
		t.Errorf("Dedup: %d kept, %d drops, err %v; want context.Canceled and nothing", len(kept), len(drops), err)
	}
	var in bytes.Buffer
	for _, q := range qs {
		in.WriteString(q.Text + "\n")
	}
	for _, f := range []Format{FormatLines, FormatCSV, FormatJSONL} {
		var b bytes.Buffer
		switch f {
		case FormatCSV:
			b.WriteString("question\n" + in.String())
		case FormatJSONL:
			for _, q := range qs {
				fmt.Fprintf(&b, "{\"question\": %q}\n", q.Text)
			}
		default:
			b.Write(in.Bytes())
		}
		got, _, _, err := Import(ctx, &b, Options{Format: f})
		if !errors.Is(err, context.Canceled) || got != nil {
			t.Errorf("%s: Import: %d kept, err %v; want context.Canceled", f, len(got), err)
		}
	}
}

// TestDedupStopsPromptly: cancelled mid-way through a large import,
// Dedup returns soon after (it looks at the context every checkEvery
// questions), not at the end.
func TestDedupStopsPromptly(t *testing.T) {
	qs := make([]Question, 400_000)
	for i := range qs {
		qs[i] = Question{Text: fmt.Sprintf("How do I calibrate joint %d of the arm?", i), Line: i + 1}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := Dedup(ctx, qs)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Dedup did not stop after its context was cancelled")
	}
}

// millionLines is a question file of n lines of one shape.
func millionLines(n int, shape string) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.Grow(n * 40)
	log := questionLog(5, 5000)
	for i := range n {
		switch shape {
		case "number":
			fmt.Fprintf(&b, "How do I calibrate joint %d of the arm?\n", i)
		case "word":
			w := make([]byte, 8)
			for j := range w {
				w[j] = byte('a' + r.IntN(26))
			}
			fmt.Fprintf(&b, "How do I configure the %s module?\n", w)
		default:
			q := log[r.IntN(len(log))].Text
			if r.IntN(2) == 0 {
				q = typo(r, q, 1+r.IntN(3))
			}
			fmt.Fprintf(&b, "%s %d\n", q, r.IntN(n/10))
		}
	}
	return b.Bytes()
}

// BenchmarkImportMillion imports (reads and drops duplicates from) a
// million-line question file: lines that differ only in a number, only in
// a random word (every question shares its template's segments), and a
// log of near and exact duplicates.
func BenchmarkImportMillion(b *testing.B) {
	for _, shape := range []string{"number", "word", "log"} {
		in := millionLines(1_000_000, shape)
		b.Run(shape, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				kept, _, st, err := Import(context.Background(), bytes.NewReader(in), Options{Format: FormatLines})
				if err != nil || len(kept) == 0 {
					b.Fatal(err)
				}
				b.ReportMetric(float64(st.Near), "near")
			}
		})
	}
}

// TestCleanFastPath: the byte-by-byte path for ASCII text gives what the
// general one gives.
func TestCleanFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const chars = "aZ09 ?!\t\x00\x1b-_.  \r\v\f\x7fQz"
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		s := string(b)
		if got, want := clean(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("clean(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestDedupIsThePairwisePassOnALargeLog: on a log of 30,000 questions from
// a few templates (many kept questions share their segments), Dedup
// still finds what comparing every pair finds.
func TestDedupIsThePairwisePassOnALargeLog(t *testing.T) {
	qs := questionLog(99, 30000)
	kept, drops := samePairwise(t, qs)
	t.Logf("%d kept, %d dropped", len(kept), len(drops))
}
