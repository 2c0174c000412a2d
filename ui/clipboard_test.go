package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeTmux records tmux calls and answers show-options with mode.
type fakeTmux struct {
	mode    string
	showErr error
	loadErr error
	calls   []string
	loaded  string
}

func (f *fakeTmux) run(_ context.Context, stdin string, args ...string) (string, error) {
	f.calls = append(f.calls, strings.Join(args, " "))
	switch args[0] {
	case "show-options":
		return f.mode + "\n", f.showErr
	case "load-buffer":
		if f.loadErr != nil {
			return "", f.loadErr
		}
		f.loaded = stdin
	}
	return "", nil
}

// A copy claims success only when something known took the text: tmux's
// buffer inside tmux, else the system clipboard; a bare OSC 52 is
// reported as sent, and tmux with set-clipboard off says how to fix it
// (issue #18, point 4).
func TestCopyClaimsOnlyWhatItKnows(t *testing.T) {
	noSys := func(string) error { return errors.New("system clipboard: no xclip") }
	okSys := func(string) error { return nil }
	tests := []struct {
		name     string
		inTmux   bool
		tmux     fakeTmux
		system   func(string) error
		outcome  clipOutcome
		kind     statusKind
		wantText []string
		osc52    bool
		loaded   bool
	}{
		{name: "tmux external", inTmux: true, tmux: fakeTmux{mode: "external"}, system: noSys, outcome: clipTmux, kind: statusOK, wantText: []string{"tmux's buffer"}, loaded: true},
		{name: "tmux on", inTmux: true, tmux: fakeTmux{mode: "on"}, system: noSys, outcome: clipTmux, kind: statusOK, loaded: true},
		{name: "tmux off, no system clipboard", inTmux: true, tmux: fakeTmux{mode: "off"}, system: noSys, outcome: clipFailed, kind: statusErr, wantText: []string{"Not copied", "tmux set -g set-clipboard on"}},
		{name: "tmux off, system clipboard", inTmux: true, tmux: fakeTmux{mode: "off"}, system: okSys, outcome: clipSystem, kind: statusOK},
		{name: "tmux unreachable, no system clipboard", inTmux: true, tmux: fakeTmux{showErr: errors.New("no server")}, system: noSys, outcome: clipOSC52, kind: statusInfo, wantText: []string{"OSC 52", "no server"}, osc52: true},
		{name: "tmux load fails", inTmux: true, tmux: fakeTmux{mode: "external", loadErr: errors.New("unknown flag -w")}, system: okSys, outcome: clipSystem, kind: statusOK},
		{name: "no tmux, system clipboard", system: okSys, outcome: clipSystem, kind: statusOK, wantText: []string{"Copied the URL to the clipboard."}},
		{name: "no tmux, no system clipboard", system: noSys, outcome: clipOSC52, kind: statusInfo, wantText: []string{"Sent the URL", "OSC 52 (copied only if the terminal allows it)", "no xclip"}, osc52: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := tt.tmux
			env := clipEnv{inTmux: tt.inTmux, tmux: ft.run, system: tt.system}
			msg := copyCmd(t.Context(), env, "the URL", "https://x.example/a#b")().(clipboardMsg)
			if msg.Outcome != tt.outcome {
				t.Fatalf("outcome %d, want %d (%+v)", msg.Outcome, tt.outcome, msg)
			}
			kind, text := clipboardStatus(msg)
			if kind != tt.kind {
				t.Errorf("status kind %d, want %d: %q", kind, tt.kind, text)
			}
			if kind != statusOK && strings.Contains(text, "Copied") {
				t.Errorf("claims a copy: %q", text)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("status %q lacks %q", text, w)
				}
			}
			if (msg.OSC52 != "") != tt.osc52 {
				t.Errorf("OSC 52 text %q, want sent=%v", msg.OSC52, tt.osc52)
			}
			if tt.loaded != (ft.loaded == "https://x.example/a#b") {
				t.Errorf("tmux buffer %q, calls %q", ft.loaded, ft.calls)
			}
			if !tt.inTmux && len(ft.calls) > 0 {
				t.Errorf("asked tmux outside tmux: %q", ft.calls)
			}
		})
	}
}

// Inside tmux ($TMUX set) the model's copy goes to tmux's buffer.
func TestCopyInTmuxUsesTmuxBuffer(t *testing.T) {
	opts, copied := testOptions(&fakeRetriever{})
	opts.Getenv = func(k string) string {
		if k == "TMUX" {
			return "/tmp/tmux-0/default,1,0"
		}
		return ""
	}
	ft := &fakeTmux{mode: "external"}
	m := sized(t, opts, 120, 40)
	m.clip.tmux = ft.run
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusResults), keyRunes("y"))
	if ft.loaded == "" || len(*copied) != 0 {
		t.Fatalf("tmux buffer %q, system copies %q", ft.loaded, *copied)
	}
	if m.statusKind != statusOK || !strings.Contains(m.status, "tmux") {
		t.Fatalf("status %q", m.status)
	}
}
