package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"ragscope/retrieval"
	"ragscope/ui/termsafe"
)

func cleanLine(s string) string { return termsafe.Line(s) }
func cleanText(s string) string { return termsafe.Text(s) }

// preview is the first n characters of text on one line.
func preview(text string, n int) string {
	s := termsafe.Line(text)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// ApproxTokens estimates the tokens of text for an LLM (about four
// characters a token for English prose).
func ApproxTokens(text string) int {
	n := len([]rune(text))
	return (n + 3) / 4
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

func timingText(t retrieval.Timings) string {
	f := func(d time.Duration) string {
		return strconv.FormatFloat(ms(d), 'f', 1, 64) + " ms"
	}
	load := ""
	if t.Load > 0 {
		load = "load " + f(t.Load) + " · "
	}
	rerank := ""
	if t.Rerank > 0 {
		rerank = "rerank " + f(t.Rerank) + " · "
	}
	return load + "embed " + f(t.Embed) + " · search " + f(t.Search) + " · " + rerank + "post " + f(t.Post) + " · total " + f(t.Total)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

func (a *App) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if a.Cfg.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, a.Cfg.Timeout)
}
