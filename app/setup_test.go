package app

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/ui"
)

// hitIDs are the chunk ids of a result, in rank order.
func hitIDs(res retrieval.Result) []string {
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.Chunk.ID)
	}
	return ids
}

// Two setups in one process, the demo searched hybrid and a saved local
// index searched with BM25, answer the same question independently: each
// gives, while the other runs at the same time, exactly what it gives
// alone, and neither setup's choices leak into the other's pipeline.
func TestTwoSetupsAnswerIndependently(t *testing.T) {
	ctx := context.Background()
	idx := filepath.Join(t.TempDir(), "site.idx")
	if _, err := BuildIndex(ctx, IndexJob{Docs: "../links/testdata/site/docs", Out: idx, Settings: config.Default()}); err != nil {
		t.Fatal(err)
	}
	demoCfg := config.Default()
	demoCfg.LocalSearch = "hybrid"
	demoSetup := FromConfig(demoCfg)
	localSetup := FromConfig(config.Default())
	localSetup.Backend, localSetup.IndexFile, localSetup.LocalSearch, localSetup.TopK = config.BackendLocal, idx, "bm25", 3

	as := &Assembler{}
	demoBe, err := as.Open(ctx, demoSetup, Search)
	if err != nil {
		t.Fatal(err)
	}
	localBe, err := as.Open(ctx, localSetup, Search)
	if err != nil {
		t.Fatal(err)
	}
	const question = "how do topics and services work?"
	ask := func(be *Backend) retrieval.Result {
		res, err := be.Pipeline.Retrieve(ctx, be.Setup.Query(question))
		if err != nil {
			t.Error(err)
		}
		return res
	}
	demoAlone, localAlone := ask(demoBe), ask(localBe)
	if demoAlone.Params.Backend != "demo" || len(demoAlone.Hits) != config.DefaultTopK || demoAlone.Params.Ranking != "hybrid" {
		t.Fatalf("demo: backend %q ranking %q, %d hits", demoAlone.Params.Backend, demoAlone.Params.Ranking, len(demoAlone.Hits))
	}
	if localAlone.Params.Backend != "local" || len(localAlone.Hits) != 3 || localAlone.Params.Ranking != "bm25" {
		t.Fatalf("local: backend %q ranking %q, %d hits", localAlone.Params.Backend, localAlone.Params.Ranking, len(localAlone.Hits))
	}
	var wg sync.WaitGroup
	for range 4 {
		for _, c := range []struct {
			be   *Backend
			want []string
		}{{demoBe, hitIDs(demoAlone)}, {localBe, hitIDs(localAlone)}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := hitIDs(ask(c.be)); !slices.Equal(got, c.want) {
					t.Errorf("%s: %v while the other setup ran, %v alone", c.be.Kind, got, c.want)
				}
			}()
		}
	}
	wg.Wait()
}

// A named setup is named in every header: the opened backend's label and
// the explorer's.
func TestNamedSetupInHeaders(t *testing.T) {
	cfg := config.Default()
	cfg.Setup, cfg.LocalSearch = "lexical", "bm25"
	s := FromConfig(cfg)
	if s.Name() != "lexical" || s.Config().Setup != "lexical" {
		t.Fatalf("setup name %q, config %q", s.Name(), s.Config().Setup)
	}
	opts, be, err := (&Assembler{}).Explorer(context.Background(), s, ui.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "setup lexical · demo textbook"; !strings.HasPrefix(be.Label, want) || !strings.HasPrefix(opts.Backend.Label, want) {
		t.Errorf("labels %q and %q, want them to start %q", be.Label, opts.Backend.Label, want)
	}
	if top := FromConfig(config.Default()); top.Labelled("demo") != "demo" {
		t.Errorf("the top level is labelled %q", top.Labelled("demo"))
	}
}

// A setting has one home: whatever setting of the table is changed on a
// setup (through the setting's own parser, on the setup's configuration)
// is what the setup's configuration and its starting query say, exactly
// as when the configuration it came from had it.
func TestSetupSettingHasOneHome(t *testing.T) {
	rows := Providers().ConfigRows()
	sample := map[string]string{
		"backend": "local", "embedder": "openai", "chat_provider": "openai", "local_search": "embedder",
		"fusion": "dbsf", "slug_style": "simple", "module_dir_depth": "2",
	}
	byType := map[string]string{"int": "7", "float": "0.5", "bool": "false", "duration": "7s", "": "http://x.example/v1"}
	base := config.Default()
	base.Providers = rows
	for _, st := range rows.Settings() {
		v, ok := sample[st.Name]
		if !ok {
			v = byType[st.Type]
		}
		want := FromConfig(base).Config()
		if err := st.Set(&want, v); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		s := FromConfig(base)
		if err := st.Set(&s.Settings, v); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if gb, eb := fmt.Sprintf("%#v", revealed(s.Config())), fmt.Sprintf("%#v", revealed(want)); gb != eb {
			t.Errorf("setting %s set on the setup is lost:\n got %s\nwant %s", st.Name, gb, eb)
		}
		if q, wq := s.Query("q"), (Setup{Settings: want}).Query("q"); !reflect.DeepEqual(q, wq) {
			t.Errorf("setting %s: the setup's query %+v, want %+v", st.Name, q, wq)
		}
	}
}

// revealed is c with its secrets as values, so that two configurations
// that differ only in a key compare different.
func revealed(c config.Config) any {
	keys := map[string]string{}
	for k, v := range c.Keys {
		keys[k] = v.Reveal()
	}
	c.Keys = nil
	c.Providers = nil
	return struct {
		C    config.Config
		Keys map[string]string
		Qd   string
	}{c, keys, c.QdrantAPIKey.Reveal()}
}
