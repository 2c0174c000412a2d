package bm25

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// The hashes are mmh3.hash's documented values (Python, seed 0, signed):
// "foo" → -156908512 and "hello" → 613153351; FastEmbed keeps the absolute value.
func TestTokenIDIsAbsSignedMurmur3(t *testing.T) {
	for tok, want := range map[string]uint32{"foo": 156908512, "hello": 613153351} {
		if got := TokenID(tok); got != want {
			t.Errorf("TokenID(%q) = %d, want %d", tok, got, want)
		}
	}
}

func TestTokensSplitLowerStopStem(t *testing.T) {
	got := Tokens("The cats ran, the cat RUNS! snake_case über-naïve it's 42x")
	// "the", "it", "s" are stop words; "cats"→cat, "runs"→run,
	// "snake_case" stays one token ("_" is a word character) stemmed to "snake_cas"; "naïve"→naïv.
	want := []string{"cat", "ran", "cat", "run", "snake_cas", "über", "naïv", "42x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
}

func TestTokensDropOverlong(t *testing.T) {
	long := strings.Repeat("a", 41)
	if got := Tokens("ok " + long + " " + strings.Repeat("b", 40)); len(got) != 2 || got[0] != "ok" {
		t.Fatalf("Tokens = %q, want ok and the 40-character token only", got)
	}
}

func TestQueryEachStemOnceWeightOne(t *testing.T) {
	v := Query("Cats and the cat")
	// "and", "the" dropped; cats and cat share the stem "cat".
	if v.Len() != 1 || v.Indices[0] != TokenID("cat") || v.Values[0] != 1 {
		t.Fatalf("Query = %+v, want {[%d] [1]}", v, TokenID("cat"))
	}
	if q := Query("the of and"); q.Len() != 0 {
		t.Fatalf("Query of stop words only = %+v, want empty", q)
	}
}

func TestDocumentWeightsByHand(t *testing.T) {
	// Stems: cat ran cat run → len 4; norm = 1.2·(0.25 + 0.75·4/256) = 0.3140625.
	// cat (tf 2): 2·2.2/(2+0.3140625) = 1.901418…; ran, run (tf 1): 2.2/1.3140625 = 1.674197…
	v := Document("The cats ran, the cat runs!")
	want := map[uint32]float64{TokenID("cat"): 4.4 / 2.3140625, TokenID("ran"): 2.2 / 1.3140625, TokenID("run"): 2.2 / 1.3140625}
	if v.Len() != len(want) {
		t.Fatalf("Document = %+v, want %d entries", v, len(want))
	}
	for i, id := range v.Indices {
		if i > 0 && v.Indices[i-1] >= id {
			t.Fatalf("indices not ascending: %v", v.Indices)
		}
		if math.Abs(float64(v.Values[i])-want[id]) > 1e-6 {
			t.Errorf("weight of %d = %v, want %v", id, v.Values[i], want[id])
		}
	}
}
