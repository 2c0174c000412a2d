package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/ui"
)

// tuiDriver drives the explorer's model through its Update loop the way a
// Bubble Tea program does: every returned command runs in its own
// goroutine and its message is fed back into Update on the test's
// goroutine (the only one that touches the model).
type tuiDriver struct {
	t    *testing.T
	m    ui.Model
	msgs chan tea.Msg
	stop chan struct{}
	// fed counts the messages fed to Update, by type.
	fed map[string]int
	// running counts the commands still running.
	running sync.WaitGroup
}

func newTUIDriver(t *testing.T, opts ui.Options) *tuiDriver {
	t.Helper()
	d := &tuiDriver{t: t, m: ui.New(opts), msgs: make(chan tea.Msg, 64), stop: make(chan struct{}), fed: map[string]int{}}
	// The test's folders are removed after this cleanup: commands still
	// running (saving the history into the state folder) end first, or
	// the removal races with their writes. A command that blocks longer
	// (a tick, a stream) is not waited for.
	t.Cleanup(func() {
		close(d.stop)
		done := make(chan struct{})
		go func() { d.running.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.exec(d.m.Init())
	return d
}

// exec runs cmd in the background and queues its message.
func (d *tuiDriver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		msg := cmd()
		select {
		case d.msgs <- msg:
		case <-d.stop:
		}
	}()
}

// send feeds msg to Update (a batch runs its commands instead).
func (d *tuiDriver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
		return
	}
	d.fed[fmt.Sprintf("%T", msg)]++
	next, cmd := d.m.Update(msg)
	d.m = next.(ui.Model)
	d.exec(cmd)
}

// keys sends key presses: a key code (tea.KeyEnter), a tea.KeyPressMsg,
// or a string typed rune by rune.
func (d *tuiDriver) keys(keys ...any) {
	for _, k := range keys {
		switch k := k.(type) {
		case rune:
			d.send(tea.KeyPressMsg{Code: k})
		case tea.KeyPressMsg:
			d.send(k)
		case string:
			for _, r := range k {
				d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

// until feeds messages until cond holds.
func (d *tuiDriver) until(what string, timeout time.Duration, cond func(m ui.Model) bool) {
	d.t.Helper()
	deadline := time.After(timeout)
	for !cond(d.m) {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; status %q\n%s", what, d.m.Status(), screen(d.m))
		}
	}
}

// ask goes to the question box (asking leaves the keyboard on the
// results), clears it, types q and presses enter.
func (d *tuiDriver) ask(q string) {
	d.keys("i", tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}, q, tea.KeyEnter)
}

func idle(m ui.Model) bool { return !m.Running() }

// tuiOptionsFor resolves the configuration from env as the command line
// does (no flags) and builds the explorer's options as runTUI does.
func tuiOptionsFor(t *testing.T, env map[string]string) ui.Options {
	t.Helper()
	opts, err := tuiAppFor(t, env).tuiOptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// tuiAppFor is an App with its configuration resolved from env as the
// command line resolves it (no flags).
func tuiAppFor(t *testing.T, env map[string]string) *App {
	t.Helper()
	env = with(env, "XDG_STATE_HOME", t.TempDir())
	app := &App{
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	if err := app.resolveConfig(app.NewRootCmd()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.closeBackends)
	return app
}

// The explorer against the in-process Qdrant and Cohere servers, through
// its Update loop: results, a query cancelled mid-request by a newer one
// (the stale reply dropped), retry exhaustion, an eval run, and a rejected
// Qdrant key.
func TestTUIAgainstQdrantAndCohere(t *testing.T) {
	_, co, env := fakes(t)
	opts := tuiOptionsFor(t, env)
	if opts.Backend.Kind != "qdrant" || opts.Eval == nil || opts.EvalDefault != "" {
		t.Fatalf("options: backend %+v, eval %v %q", opts.Backend, opts.Eval != nil, opts.EvalDefault)
	}
	d := newTUIDriver(t, opts)
	d.until("stats", 5*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "160 points") })

	// Results from Qdrant.
	d.ask("how do ROS 2 nodes communicate?")
	if !d.m.Running() {
		t.Fatal("enter did not start a query")
	}
	d.until("results", 10*time.Second, idle)
	if st := d.m.Status(); !strings.Contains(st, "results") || !strings.Contains(st, "embed") {
		t.Fatalf("status = %q", st)
	}
	if v := screen(d.m); !strings.Contains(v, "https://") || !strings.Contains(v, "Grounded") && !strings.Contains(v, "module-1-ros2") {
		t.Fatalf("no hits on screen:\n%s", v)
	}

	// A slow Cohere: the first question is in flight when the second is
	// asked; the first is cancelled and its reply dropped.
	co.SetLatency(2 * time.Second)
	before := co.Requests()
	d.ask("what is a URDF link?")
	d.until("the first embed request", 5*time.Second, func(ui.Model) bool { return co.Requests() > before })
	results := d.fed["ui.resultMsg"]
	start := time.Now()
	d.ask("how does a simulated lidar work?")
	d.until("the cancelled reply", 3*time.Second, func(ui.Model) bool { return d.fed["ui.resultMsg"] > results })
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("the cancelled query took %s to return", took)
	}
	if !d.m.Running() || strings.Contains(d.m.Status(), "Cancelled") || len(d.m.Turns()) != 1 {
		t.Fatalf("the stale reply was not dropped: running %v, status %q, turns %q", d.m.Running(), d.m.Status(), d.m.Turns())
	}
	d.until("the second reply", 10*time.Second, idle)
	if turns := d.m.Turns(); len(turns) != 2 || turns[1] != "how does a simulated lidar work?" {
		t.Fatalf("turns = %q; status %q", turns, d.m.Status())
	}
	co.SetLatency(0)

	// Retry exhaustion: three 503s, then a clear error; the TUI stays usable.
	co.Fail(coheretest.Failure{Status: 503}, coheretest.Failure{Status: 503}, coheretest.Failure{Status: 503})
	d.ask("what is reward shaping?")
	d.until("retry exhaustion", 15*time.Second, idle)
	st := d.m.Status()
	t.Logf("retry exhaustion: %s", st)
	if !strings.Contains(st, "Cohere is unavailable (503) after 3 attempts") || strings.Contains(st, "QDRANT") {
		t.Fatalf("status = %q", st)
	}
	if !strings.Contains(screen(d.m), "✗ ") {
		t.Fatal("the error is not marked as one")
	}
	d.keys(tea.KeyEnter)
	d.until("the retry", 10*time.Second, idle)
	if turns := d.m.Turns(); len(turns) != 3 || !strings.Contains(d.m.Status(), "results") {
		t.Fatalf("not usable after the error: turns %q, status %q", turns, d.m.Status())
	}

	// An eval of a small set through the eval view.
	set := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(set, []byte(`name: tui
cases:
  - {id: dds, question: "Which middleware does ROS 2 use for discovery?", expected_modules: [module-1-ros2]}
  - {id: sel, question: "Explain", mode: selected_text_only, selected_text: "Topics carry messages."}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	d.keys("e", tea.KeyEnter) // the results have the keyboard after asking
	d.until("the empty-path error", 5*time.Second, func(m ui.Model) bool { return !m.EvalRunning() && strings.Contains(m.Status(), "path") })
	if st := d.m.Status(); !strings.Contains(st, "built-in set is for the demo textbook") {
		t.Fatalf("empty path on Qdrant: %q", st)
	}
	d.keys(set, tea.KeyEnter) // the keyboard is back in the path input
	d.until("the eval", 10*time.Second, func(m ui.Model) bool { return !m.EvalRunning() && strings.Contains(m.Status(), "Eval ") })
	if v := screen(d.m); !strings.Contains(d.m.Status(), "Eval passed: 2 cases") || !strings.Contains(v, "dds") || !strings.Contains(v, "PASS") {
		t.Fatalf("eval: status %q\n%s", d.m.Status(), v)
	}
	d.keys(tea.KeyEnter) // open the first case as a query turn
	d.until("the case's query", 10*time.Second, idle)
	if turns := d.m.Turns(); len(turns) != 4 || turns[3] != "Which middleware does ROS 2 use for discovery?" {
		t.Fatalf("turns = %q", turns)
	}
	assertNoSecrets(t, screen(d.m), d.m.Status())
}

func TestTUIQdrantKeyRejected(t *testing.T) {
	_, _, env := fakes(t)
	d := newTUIDriver(t, tuiOptionsFor(t, with(env, "QDRANT_API_KEY", "wrong")))
	d.until("the stats error", 5*time.Second, func(m ui.Model) bool { return strings.Contains(m.Status(), "QDRANT_API_KEY") })
	d.ask("how do ROS 2 nodes communicate?")
	d.until("the query error", 10*time.Second, idle)
	st := d.m.Status()
	t.Logf("bad key: %s", st)
	if !strings.Contains(st, "QDRANT_API_KEY") || !strings.Contains(st, "rejected") {
		t.Fatalf("status = %q", st)
	}
	if !strings.Contains(screen(d.m), "✗ ") {
		t.Fatal("the error is not marked as one")
	}
	assertNoSecrets(t, screen(d.m))
}

// screen is what m draws, as plain text.
func screen(m ui.Model) string { return ansi.Strip(m.View().Content) }

// The explorer as runTUI starts it: no backend before the first frame
// (the demo opens in the explorer's first command), then the demo's
// header, stats and results.
func TestTUIOpensTheDemoAfterTheFirstFrame(t *testing.T) {
	opts := tuiAppFor(t, nil).tuiDeferred()
	if opts.Retriever != nil || opts.Open == nil || opts.Defaults.TopK == 0 {
		t.Fatalf("deferred options: retriever %v, open %v, defaults %+v", opts.Retriever != nil, opts.Open != nil, opts.Defaults)
	}
	d := newTUIDriver(t, opts)
	d.until("the demo", 10*time.Second, func(m ui.Model) bool { return strings.Contains(screen(m), "ragscope demo") })
	d.ask("How do ROS 2 nodes communicate?")
	d.until("results", 10*time.Second, idle)
	if st := d.m.Status(); !strings.Contains(st, "5 results") {
		t.Fatalf("status = %q\n%s", st, screen(d.m))
	}
}
