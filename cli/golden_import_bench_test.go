package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// millionQuestions is a question file of n lines, nearly all distinct (a
// random word in one of a few templates), one in a hundred odd for YAML:
// a colon, a quote, a leading symbol, a bidi control, accented letters.
func millionQuestions(n int) []byte {
	r := rand.New(rand.NewPCG(3, 8))
	templates := []string{"How do I configure the %s module?", "What does %s do in a launch file", "Why is %s slow on the robot?"}
	odd := []string{"key: %s value", "'%s' quoted?", "- %s starts a list", "héllo %s ünïcode", "bidi \u202e%s\u202c here", "%s # not a comment", "true %s"}
	var b bytes.Buffer
	b.Grow(n * 40)
	w := make([]byte, 10)
	for i := range n {
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		t := templates[i%len(templates)]
		if i%100 == 99 {
			t = odd[r.IntN(len(odd))]
		}
		fmt.Fprintf(&b, t+"\n", w)
	}
	return b.Bytes()
}

// BenchmarkGoldenImportMillion runs `ragscope golden import` of a
// million-line file in-process, the whole path: reading, dropping
// duplicates, writing the set and checking that eval loads it.
func BenchmarkGoldenImportMillion(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "questions.txt")
	data := millionQuestions(1_000_000)
	if err := os.WriteFile(in, data, 0o600); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "golden.yaml")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var errb bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb, Dir: dir,
			LookupEnv: func(string) (string, bool) { return "", false }}
		if code := app.Run(context.Background(), []string{"golden", "import", in, "-o", out, "--force"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
