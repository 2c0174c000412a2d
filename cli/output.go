package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"ragscope/internal/jsonsafe"
	"ragscope/present"
	"ragscope/termsafe"
)

func cleanLine(s string) string { return termsafe.Line(s) }

// maxRefShown is the most characters of a reference (an --expect REF) a
// message repeats: the user wrote it and needs only to recognise it.
const maxRefShown = 80

// shortRef is a reference as a message shows it: one line, cleaned, quoted
// when quote is set, its middle cut out with its length said when it is
// longer than maxRefShown ("docs/aa…aa.md" (100,008 characters)).
func shortRef(ref string, quote bool) string {
	s := present.Middle(ref, maxRefShown)
	if quote {
		s = strconv.Quote(s)
	}
	if n := utf8.RuneCountInString(ref); n > maxRefShown {
		s += " (" + present.Count(n, "character", "characters") + ")"
	}
	return s
}
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optFloat(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// optFloat2 is optFloat with two decimals.
func optFloat2(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}

// clipMiddle cleans s and fits it in n cells by cutting its middle
// (present.Middle): for sources and ids, whose end tells two apart.
func clipMiddle(s string, n int) string { return present.Middle(cleanLine(s), n) }

// clip cleans s and cuts it to n characters.
func clip(s string, n int) string {
	s = cleanLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
