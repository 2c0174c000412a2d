package chattask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/chatcache"
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
