package ui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"ragscope/internal/platform"
	"ragscope/ui/clipboard"
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
		outcome  clipboard.Outcome
		kind     statusKind
		wantText []string
		osc52    bool
		loaded   bool
	}{
		{name: "tmux external", inTmux: true, tmux: fakeTmux{mode: "external"}, system: noSys, outcome: clipboard.CopiedTmux, kind: statusOK, wantText: []string{"tmux's buffer"}, loaded: true},
		{name: "tmux on", inTmux: true, tmux: fakeTmux{mode: "on"}, system: noSys, outcome: clipboard.CopiedTmux, kind: statusOK, loaded: true},
		{name: "tmux off, no system clipboard", inTmux: true, tmux: fakeTmux{mode: "off"}, system: noSys, outcome: clipboard.CopyFailed, kind: statusErr, wantText: []string{"Not copied", "tmux set -g set-clipboard on"}},
		{name: "tmux off, system clipboard", inTmux: true, tmux: fakeTmux{mode: "off"}, system: okSys, outcome: clipboard.CopiedSystem, kind: statusOK},
		{name: "tmux unreachable, no system clipboard", inTmux: true, tmux: fakeTmux{showErr: errors.New("no server")}, system: noSys, outcome: clipboard.CopiedOSC52, kind: statusInfo, wantText: []string{"OSC 52", "no server"}, osc52: true},
		{name: "tmux load fails", inTmux: true, tmux: fakeTmux{mode: "external", loadErr: errors.New("unknown flag -w")}, system: okSys, outcome: clipboard.CopiedSystem, kind: statusOK},
		{name: "no tmux, system clipboard", system: okSys, outcome: clipboard.CopiedSystem, kind: statusOK, wantText: []string{"Copied the URL to the clipboard."}},
		{name: "no tmux, no system clipboard", system: noSys, outcome: clipboard.CopiedOSC52, kind: statusInfo, wantText: []string{"Sent the URL", "OSC 52 (copied only if the terminal allows it)", "no xclip"}, osc52: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := tt.tmux
			env := clipboard.Env{InTmux: tt.inTmux, Tmux: ft.run, System: tt.system}
			msg := clipboard.CopyCmd(t.Context(), env, "the URL", "https://x.example/a#b")().(clipboard.Msg)
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
	m.clip.Tmux = ft.run
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusResults), keyRunes("y"))
	if ft.loaded == "" || len(*copied) != 0 {
		t.Fatalf("tmux buffer %q, system copies %q", ft.loaded, *copied)
	}
	if m.statusKind != statusOK || !strings.Contains(m.status, "tmux") {
		t.Fatalf("status %q", m.status)
	}
}

// fakeClipRun records the clipboard commands a copy runs.
type fakeClipRun struct {
	cmds []platform.Command
	err  error
}

func (f *fakeClipRun) run(_ context.Context, c platform.Command) error {
	f.cmds = append(f.cmds, c)
	return f.err
}

// On macOS and Windows a copy runs the system's own clipboard command
// (pbcopy in a UTF-8 locale; clip.exe fed UTF-16LE with a byte order
// mark), with the text sanitised by copyCmd as everywhere; elsewhere the
// X11 and Wayland tools are used as before.
func TestSystemClipboardPerSystem(t *testing.T) {
	const text = "café \x1b[31mred\x1b[0m\u202eevil\nnext"
	const clean = "café redevil\nnext"
	for _, goos := range []string{"darwin", "windows", "linux"} {
		run := &fakeClipRun{}
		var fell []string
		fallback := func(s string) error { fell = append(fell, s); return nil }
		env := clipboard.Env{System: clipboard.SystemClipboard(goos, run.run, fallback)}
		msg := clipboard.CopyCmd(context.Background(), env, "the chunk", text)().(clipboard.Msg)
		if msg.Outcome != clipboard.CopiedSystem {
			t.Fatalf("%s: outcome %v (%s)", goos, msg.Outcome, msg.Why)
		}
		switch goos {
		case "darwin":
			if len(run.cmds) != 1 || run.cmds[0].Name != "pbcopy" || string(run.cmds[0].Stdin) != clean || len(fell) != 0 {
				t.Fatalf("darwin: ran %+v, fallback %q", run.cmds, fell)
			}
			if !strings.Contains(strings.Join(run.cmds[0].Env, " "), "UTF-8") {
				t.Errorf("darwin: pbcopy env %q has no UTF-8 locale", run.cmds[0].Env)
			}
		case "windows":
			if len(run.cmds) != 1 || run.cmds[0].Name != "clip.exe" || len(fell) != 0 {
				t.Fatalf("windows: ran %+v, fallback %q", run.cmds, fell)
			}
			if want := platform.UTF16LEWithBOM(strings.ReplaceAll(clean, "\n", "\r\n")); !bytes.Equal(run.cmds[0].Stdin, want) {
				t.Fatalf("windows: clip.exe reads % x\nwant % x", run.cmds[0].Stdin, want)
			}
		case "linux":
			if len(run.cmds) != 0 || len(fell) != 1 || fell[0] != clean {
				t.Fatalf("linux: ran %+v, fallback %q", run.cmds, fell)
			}
		}
	}
}

// A clipboard command that fails leaves OSC 52, with the reason.
func TestSystemClipboardCommandFails(t *testing.T) {
	run := &fakeClipRun{err: errors.New(`exec: "pbcopy": executable file not found in $PATH`)}
	env := clipboard.Env{System: clipboard.SystemClipboard("darwin", run.run, nil)}
	msg := clipboard.CopyCmd(context.Background(), env, "the URL", "https://x.org")().(clipboard.Msg)
	if msg.Outcome != clipboard.CopiedOSC52 || msg.OSC52 != "https://x.org" || !strings.Contains(msg.Why, "pbcopy") {
		t.Fatalf("%+v", msg)
	}
}
