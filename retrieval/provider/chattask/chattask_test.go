package chattask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
)

func TestRunStopsOnARefusedKeyAndSkipsTheRest(t *testing.T) {
	var mu sync.Mutex
	skipped := map[int]string{}
	c, err := Run(context.Background(), 1, 5, nil, Task{
		Cached: func(i int) bool { return i == 0 },
		Ask: func(_ context.Context, i int) (bool, retrieval.Usage, error) {
			if i == 2 {
				return false, retrieval.Usage{InputTokens: 1}, fmt.Errorf("chat: %w", retrieval.ErrAuth)
			}
			return true, retrieval.Usage{InputTokens: 10, OutputTokens: 2}, nil
		},
		Skip: func(i int, why string) { mu.Lock(); skipped[i] = why; mu.Unlock() },
	})
	if !errors.Is(err, retrieval.ErrAuth) || c.Calls != 2 || c.Cached != 1 || c.Failed != 3 || c.Usage.InputTokens != 11 {
		t.Fatalf("%+v, %v", c, err)
	}
	if len(skipped) != 2 || !strings.HasPrefix(skipped[3], "not sent after an earlier call failed: chat: ") {
		t.Fatalf("skipped %v", skipped)
	}
}

func TestMemoAndTolerantObjects(t *testing.T) {
	var nilMemo *Memo
	nilMemo.Put("k", []byte("v"))
	if _, ok := nilMemo.Get("k"); ok {
		t.Fatal("a nil memo kept an entry")
	}
	dir := filepath.Join(t.TempDir(), "c")
	m := NewMemo(chatcache.Open(dir))
	key := chatcache.Key("a", "b")
	m.Put(key, []byte(`{"x":1}`))
	if b, ok := NewMemo(chatcache.Open(dir)).Get(key); !ok || string(b) != `{"x":1}` {
		t.Fatal("not on disk")
	}
	obj, ok := FindObject("Sure!\n```json\n{\"Grade\": 2}\n```")
	var fields map[string]json.RawMessage
	if !ok || json.Unmarshal(obj, &fields) != nil {
		t.Fatalf("%s", obj)
	}
	if v, ok := Field(fields, "grade"); !ok || string(v) != "2" {
		t.Fatal("field not matched in any case")
	}
	if _, ok := FindObject("no object {here"); ok {
		t.Fatal("found an object in prose")
	}
}

func TestLoadPrompt(t *testing.T) {
	fsys := fstest.MapFS{
		"p/ok-v1.txt":  {Data: []byte("Be brief.\n---- user ----\nQ: {{.Q}}\n")},
		"p/bad-v1.txt": {Data: []byte("no user part")},
	}
	p, err := LoadPrompt(fsys, "p/ok-v1.txt")
	if err != nil || !strings.HasPrefix(p.Version, "ok-v1+") || len(p.Version) != len("ok-v1+")+12 {
		t.Fatalf("%+v %v", p, err)
	}
	rp, err := p.Render(struct{ Q string }{"why?"}, &retrieval.Schema{Name: "s"})
	if err != nil || rp.Question != "Q: why?" || rp.Instruction != "Be brief." || rp.Schema.Name != "s" {
		t.Fatalf("%+v %v", rp, err)
	}
	if _, err := p.Render(struct{ R string }{}, nil); err == nil {
		t.Fatal("a missing key rendered")
	}
	if _, err := LoadPrompt(fsys, "p/bad-v1.txt"); err == nil {
		t.Fatal("a prompt without a user part loaded")
	}
}

// downGen fails every call it is asked to fail (fail(n), n counting from
// 1) as an unavailable model would, and answers the others; it counts
// the calls.
type downGen struct {
	calls atomic.Int32
	fail  func(n int) bool
}

func (g *downGen) Stream(ctx context.Context, _ retrieval.Prompt, emit func(retrieval.Delta)) error {
	n := int(g.calls.Add(1))
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.fail(n) {
		return fmt.Errorf("%w: the chat server is unavailable (500)", retrieval.ErrUnavailable)
	}
	emit(retrieval.Delta{Text: "ok"})
	return nil
}
func (g *downGen) Model() string    { return "m" }
func (g *downGen) Provider() string { return "fake" }

// runAsk runs n items through Ask on gen, concurrency at a time, and
// returns the skip reasons by item.
func runAsk(t *testing.T, gen retrieval.Generator, concurrency, n int) (Counts, map[int]string, error) {
	t.Helper()
	var mu sync.Mutex
	skipped := map[int]string{}
	c, err := Run(context.Background(), concurrency, n, nil, Task{
		Noun:   "hit",
		Cached: func(int) bool { return false },
		Ask: func(ctx context.Context, _ int) (bool, retrieval.Usage, error) {
			_, u, err := Ask(ctx, gen, retrieval.Prompt{Question: "q"})
			return err == nil, u, err
		},
		Skip: func(i int, why string) { mu.Lock(); skipped[i] = why; mu.Unlock() },
	})
	return c, skipped, err
}

// The model failing MaxFailuresInARow calls in a row stops the run: the
// other items are not sent, and the error names the cause and the count.
func TestRunStopsWhenTheModelFailsInARow(t *testing.T) {
	gen := &downGen{fail: func(int) bool { return true }}
	c, skipped, err := runAsk(t, gen, 1, 10)
	var down *DownError
	if !errors.As(err, &down) || !errors.Is(err, retrieval.ErrUnavailable) || gen.calls.Load() != MaxFailuresInARow || c.Calls != MaxFailuresInARow || c.Failed != 10 {
		t.Fatalf("%+v, %v, %d calls", c, err, gen.calls.Load())
	}
	if want := "the chat model failed 3 times in a row: backend unavailable: the chat server is unavailable (500); the other 7 hits were not tried"; err.Error() != want {
		t.Fatalf("err %q, want %q", err, want)
	}
	if len(skipped) != 7 || !strings.HasPrefix(skipped[9], "not sent: the chat model failed 3 times in a row: ") {
		t.Fatalf("skipped %v", skipped)
	}
}

// A success between failures resets the count: failing two calls of
// every three never stops the run.
func TestRunSuccessResetsTheFailuresInARow(t *testing.T) {
	gen := &downGen{fail: func(n int) bool { return n%3 != 0 }}
	c, skipped, err := runAsk(t, gen, 1, 12)
	if err != nil || gen.calls.Load() != 12 || len(skipped) != 0 || c.Failed != 8 {
		t.Fatalf("%+v, %v, %d calls, skipped %v", c, err, gen.calls.Load(), skipped)
	}
}

// Many calls in parallel against a model that is down: at most the
// failures in a row plus the calls in flight are made (run with -race).
func TestRunStopsInParallel(t *testing.T) {
	const conc = 8
	gen := &downGen{fail: func(int) bool { return true }}
	c, skipped, err := runAsk(t, gen, conc, 500)
	var down *DownError
	if !errors.As(err, &down) || int(gen.calls.Load()) > MaxFailuresInARow+conc || c.Failed != 500 {
		t.Fatalf("%+v, %v, %d calls", c, err, gen.calls.Load())
	}
	if len(skipped) != down.NotTried || down.NotTried < 500-MaxFailuresInARow-conc {
		t.Fatalf("%d skipped, %d not tried", len(skipped), down.NotTried)
	}
}
