package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"ragscope/termsafe"
)

func cleanLine(s string) string { return termsafe.Line(s) }
func cleanText(s string) string { return termsafe.Text(s) }

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

// ms is d in milliseconds, for JSON.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
