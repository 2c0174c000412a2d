package cli

import (
	"strings"
	"testing"
)

// stats and links read the collection and embed nothing: they need no
// embedding key, and say that questions need one. A query still does.
func TestStatsAndLinksNeedNoEmbeddingKey(t *testing.T) {
	_, co, env := fakes(t)
	delete(env, "COHERE_API_KEY")
	code, out, errs := run(t, env, "", "stats")
	if code != ExitOK || !strings.Contains(out, "160") || !strings.Contains(out+errs, "COHERE_API_KEY") {
		t.Fatalf("stats without a key: exit %d\n%s\n%s", code, out, errs)
	}
	// The fake collection's URLs are not on this site, so links stops
	// with that configuration error: not with one about the key.
	code, out, errs = run(t, env, "", "links", "--json", "--site", "../links/testdata/site")
	if code != ExitConfig || !strings.Contains(errs, "links checked none of the 34 citation URLs") || strings.Contains(errs, "ragscope: no embedder API key") {
		t.Fatalf("links without a key: exit %d\n%s\n%s", code, out, errs)
	}
	if co.Requests() != 0 {
		t.Fatalf("%d embedding calls from stats and links", co.Requests())
	}
	if code, _, errs := run(t, env, "", "query", "what is ros?"); code != ExitConfig || !strings.Contains(errs, "COHERE_API_KEY") {
		t.Fatalf("query without a key: exit %d %s", code, errs)
	}
}

// stats beside a model whose vectors do not fit the collection says that
// the model cannot search it.
func TestStatsSaysTheModelCannotSearchTheCollection(t *testing.T) {
	_, _, env := fakes(t)
	code, out, errs := run(t, with(env, "QDRANT_COLLECTION", "small_vectors"), "", "stats")
	if code != ExitOK || !strings.Contains(out+errs, "holds 8-dimensional vectors") || !strings.Contains(out+errs, "1024") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}
