package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// bar shows the progress of a long command on stderr. On a terminal it is
// one line redrawn in place, "  label [#####.....] done/total" (then, once
// the phase has run half a second, " · ETA 12s" from its pace so far; "  label…"
// for a phase of one step), at most every 50 ms; elsewhere (a pipe, a CI log) it writes nothing or, when
// plain, one line per finished phase, so logs stay readable.
type bar struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	plain bool
	drawn bool
	last  time.Time
	// phase is the phase drawn and start when it started (for the ETA).
	phase string
	start time.Time
}

// etaAfter is how long a phase runs before the bar estimates its end.
const etaAfter = 500 * time.Millisecond

// eta is the phase's " · ETA 12s" once it has run etaAfter ("" before).
func (b *bar) eta(done, total int) string {
	now := time.Now()
	if now.Sub(b.start) < etaAfter {
		return ""
	}
	return eta(b.start, now, done, total)
}

// barWidth is the number of cells of the drawn bar.
const barWidth = 30

func newBar(w io.Writer, plain bool) *bar {
	return &bar{w: w, tty: isTerminal(w), plain: plain}
}

// update shows that done of total steps of phase are finished.
func (b *bar) update(phase string, done, total int) {
	if total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	finished := done >= total
	if phase != b.phase || done == 0 {
		b.phase, b.start = phase, time.Now()
	}
	if !b.tty {
		if b.plain && finished {
			fmt.Fprintf(b.w, "%s: %d/%d\n", phase, done, total)
		}
		return
	}
	if !finished && done > 0 && time.Since(b.last) < 50*time.Millisecond {
		return
	}
	b.last = time.Now()
	b.drawn = true
	if total == 1 {
		// One step: a phase with no count worth drawing.
		fmt.Fprintf(b.w, "\r\x1b[K  %s…", cleanLine(phase))
		return
	}
	n := min(done, total) * barWidth / total
	fmt.Fprintf(b.w, "\r\x1b[K  %s [%s%s] %d/%d%s", cleanLine(phase), strings.Repeat("#", n), strings.Repeat(".", barWidth-n), done, total, b.eta(done, total))
	b.drawn = true
}

// clear removes the drawn line, if any.
func (b *bar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}
