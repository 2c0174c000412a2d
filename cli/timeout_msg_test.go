package cli

import (
	"strings"
	"testing"
	"time"

	"ragscope/ui"
)

// TestTimeoutMessageNamesTheBackend: a Cohere that does not answer within
// --timeout gives the same classified message on the command line and in
// the explorer's status line, and both say that Cohere timed out.
func TestTimeoutMessageNamesTheBackend(t *testing.T) {
	_, co, env := fakes(t)
	co.SetLatency(3 * time.Second)
	env = with(env, "RAGSCOPE_TIMEOUT", "300ms")

	code, _, errs := run(t, env, "", "query", "what is a slow answer?")
	if code != ExitBackend {
		t.Fatalf("exit %d, want %d: %s", code, ExitBackend, errs)
	}
	cli := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(errs, "\n", 2)[0], "ragscope: "))

	d := newTUIDriver(t, tuiOptionsFor(t, env))
	d.ask("what is another slow answer?")
	d.until("the timeout", 10*time.Second, func(m ui.Model) bool { return !m.Running() && m.Status() != "" })
	tui := d.m.Status()

	for name, msg := range map[string]string{"CLI": cli, "TUI": tui} {
		if !strings.Contains(msg, "Timed out") || !strings.Contains(msg, "Cohere did not answer") {
			t.Errorf("%s message does not say Cohere timed out: %q", name, msg)
		}
	}
	if !strings.Contains(tui, cli) {
		t.Errorf("the TUI and the CLI classify the timeout differently:\nCLI: %s\nTUI: %s", cli, tui)
	}
}
