package embedx

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval/provider/netx"
)

func TestEmbedRefusesVectorsWithoutDirection(t *testing.T) {
	for name, v := range map[string][]float32{
		"all zeros": {0, 0, 0, 0},
		"NaN":       {0.1, float32(math.NaN()), 0.2},
		"+Inf":      {0.1, float32(math.Inf(1))},
		"-Inf":      {float32(math.Inf(-1)), 0.3},
		"empty":     {},
	} {
		t.Run(name, func(t *testing.T) {
			c := NewCache(4)
			fetch := func(_ context.Context, b []string) ([][]float32, error) {
				return [][]float32{v}, nil
			}
			var said string
			invalid := func(what string) error { said = what; return bad(what) }
			got, err := Embed(context.Background(), c, "m", []string{"q"}, 8, fetch, invalid)
			if err == nil || got != nil || said == "" {
				t.Fatalf("vector %v accepted: %v %v", v, got, err)
			}
			if c.Len() != 0 {
				t.Fatal("an invalid vector was cached")
			}
		})
	}
	if got := CheckVector([]float32{0, 0, 0}); got != "an embedding of all zeros" {
		t.Errorf("CheckVector(zeros) = %q", got)
	}
	if got := CheckVector([]float32{0, -0.5, 0}); got != "" {
		t.Errorf("a vector with one non-zero value is usable: %q", got)
	}
}

func TestTriesSaysWhatHappened(t *testing.T) {
	for _, c := range []struct {
		attempts int
		asked    time.Duration
		want     string
	}{
		{1, 0, ""},
		{3, 0, " after 3 attempts"},
		{1, time.Hour, ": asked to wait 1 h, past the 4 s timeout; not retried"},
		{2, 90 * time.Second, " after 2 attempts: asked to wait 1 min 30 s, past the 4 s timeout; not retried again"},
	} {
		if got := Tries(c.attempts, netx.Step{Asked: c.asked, Limit: "the 4 s timeout"}); got != c.want {
			t.Errorf("Tries(%d, %v) = %q, want %q", c.attempts, c.asked, got, c.want)
		}
	}
	for d, want := range map[time.Duration]string{
		time.Hour: "1 h", 90 * time.Minute: "1 h 30 min", 2 * time.Minute: "2 min", 45 * time.Second: "45 s", 20*time.Second + 400*time.Millisecond: "20 s",
	} {
		if got := Wait(d); got != want {
			t.Errorf("Wait(%v) = %q, want %q", d, got, want)
		}
	}
	if !strings.Contains(Tries(1, netx.Step{Asked: 3600 * time.Second, Limit: "the 4 s timeout"}), "1 h") {
		t.Error("an hour is said in hours")
	}
}
