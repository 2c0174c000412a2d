package cli

import (
	"context"
	"io"
	"time"

	"ragscope/internal/jsonsafe"
	"ragscope/termsafe"
)

func cleanLine(s string) string { return termsafe.Line(s) }
func cleanText(s string) string { return termsafe.Text(s) }

// writeJSON writes v as indented JSON: the one encoder of every --json
// document and report file, which escapes C1 and bidi controls inside
// strings (jsonsafe) as well as the C0 controls encoding/json escapes.
func writeJSON(w io.Writer, v any) error {
	return jsonsafe.Encode(w, v)
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
