package platform

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestOpenCommandPerSystem(t *testing.T) {
	const u = "https://book.example/docs/intro#setup"
	for _, tc := range []struct {
		goos string
		want []string
	}{
		{"linux", []string{"xdg-open", u}},
		{"freebsd", []string{"xdg-open", u}},
		{"darwin", []string{"open", u}},
		{"windows", []string{"rundll32", "url.dll,FileProtocolHandler", u}},
	} {
		c := OpenCommand(tc.goos, u)
		if got := append([]string{c.Name}, c.Args...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.goos, got, tc.want)
		}
		if c.Stdin != nil || c.Env != nil {
			t.Errorf("%s: stdin %q env %q", tc.goos, c.Stdin, c.Env)
		}
	}
}

// On Windows the link is one argument that needs no quoting: rundll32
// hands its command line to the browser as it is, quotes included, and no
// shell reads & or ^ in it.
func TestOpenCommandWindowsNeedsNoQuoting(t *testing.T) {
	c := OpenCommand("windows", `https://a.example/my page?q="x"&r=^1`)
	want := `https://a.example/my%20page?q=%22x%22&r=^1`
	if c.Args[1] != want {
		t.Fatalf("argument %q, want %q", c.Args[1], want)
	}
	if strings.ContainsAny(c.Args[1], " \t\"") {
		t.Fatalf("argument %q would be quoted on the command line", c.Args[1])
	}
	// Elsewhere the link goes through argv untouched.
	if got := OpenCommand("darwin", "https://a.example/my page").Args[0]; got != "https://a.example/my page" {
		t.Errorf("darwin argument %q", got)
	}
}

func TestCopyCommandPerSystem(t *testing.T) {
	text := "héllo\nworld ✓ 𝄞"
	if _, ok := CopyCommand("linux", text); ok {
		t.Error("linux has one clipboard command; want the run-time choice (xclip, xsel, wl-copy)")
	}
	mac, ok := CopyCommand("darwin", text)
	if !ok || mac.Name != "pbcopy" || len(mac.Args) != 0 || string(mac.Stdin) != text {
		t.Fatalf("darwin: %+v", mac)
	}
	if !slicesContain(mac.Env, "LANG=en_US.UTF-8") {
		t.Errorf("darwin: pbcopy without a UTF-8 locale reads Mac Roman: env %q", mac.Env)
	}
	win, ok := CopyCommand("windows", text)
	if !ok || win.Name != "clip.exe" || len(win.Args) != 0 {
		t.Fatalf("windows: %+v", win)
	}
	want := []byte{0xFF, 0xFE, // byte order mark
		'h', 0, 0xE9, 0, 'l', 0, 'l', 0, 'o', 0, '\r', 0, '\n', 0,
		'w', 0, 'o', 0, 'r', 0, 'l', 0, 'd', 0, ' ', 0, 0x13, 0x27, ' ', 0,
		0x34, 0xD8, 0x1E, 0xDD, // U+1D11E as a surrogate pair
	}
	if !bytes.Equal(win.Stdin, want) {
		t.Fatalf("windows stdin\n got % x\nwant % x", win.Stdin, want)
	}
}

func TestCRLF(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a\nb\n": "a\r\nb\r\n", "a\r\nb": "a\r\nb"} {
		if got := crlf(in); got != want {
			t.Errorf("crlf(%q) = %q, want %q", in, got, want)
		}
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestRunFeedsStdinAndCapturesStderr(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs a Unix sh")
	}
	out := filepath.Join(t.TempDir(), "out")
	c := Command{Name: sh, Args: []string{"-c", `cat > "$1"; printf '%s' "$X"`, "sh", out}, Env: []string{"X=set"}, Stdin: []byte("copied")}
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "copied" {
		t.Fatalf("stdin reached the command as %q", b)
	}
	err = Run(context.Background(), Command{Name: sh, Args: []string{"-c", `printf 'no display\033[2J' >&2; exit 3`}})
	if err == nil || !strings.Contains(err.Error(), "no display") || strings.Contains(err.Error(), "\033") {
		t.Fatalf("err = %v", err)
	}
}

func TestDirsPerSystem(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	for _, tc := range []struct {
		name string
		env  Env
		want Dirs
	}{
		{"linux", Env{GOOS: "linux", LookupEnv: none, Home: "/home/ada"},
			Dirs{Config: "/home/ada/.config/ragscope", Cache: "/home/ada/.cache/ragscope", State: "/home/ada/.local/state/ragscope"}},
		{"linux with XDG", Env{GOOS: "linux", LookupEnv: vars(map[string]string{"XDG_CONFIG_HOME": "/x/c", "XDG_CACHE_HOME": "/x/k", "XDG_STATE_HOME": "/x/s"}), Home: "/home/ada"},
			Dirs{Config: "/x/c/ragscope", Cache: "/x/k/ragscope", State: "/x/s/ragscope"}},
		{"linux with relative XDG (ignored, as the spec says)", Env{GOOS: "linux", LookupEnv: vars(map[string]string{"XDG_STATE_HOME": "state"}), Home: "/home/ada"},
			Dirs{Config: "/home/ada/.config/ragscope", Cache: "/home/ada/.cache/ragscope", State: "/home/ada/.local/state/ragscope"}},
		{"darwin", Env{GOOS: "darwin", LookupEnv: none, Home: "/Users/ada"},
			Dirs{Config: "/Users/ada/Library/Application Support/ragscope", Cache: "/Users/ada/Library/Caches/ragscope", State: "/Users/ada/Library/Application Support/ragscope"}},
		{"darwin with XDG_STATE_HOME", Env{GOOS: "darwin", LookupEnv: vars(map[string]string{"XDG_STATE_HOME": "/Users/ada/.local/state"}), Home: "/Users/ada"},
			Dirs{Config: "/Users/ada/Library/Application Support/ragscope", Cache: "/Users/ada/Library/Caches/ragscope", State: "/Users/ada/.local/state/ragscope"}},
		{"windows", Env{GOOS: "windows", LookupEnv: vars(map[string]string{"APPDATA": `C:\Users\ada\AppData\Roaming`, "LOCALAPPDATA": `C:\Users\ada\AppData\Local`}), Home: `C:\Users\ada`},
			Dirs{Config: `C:\Users\ada\AppData\Roaming\ragscope`, Cache: `C:\Users\ada\AppData\Local\ragscope`, State: `C:\Users\ada\AppData\Local\ragscope`}},
		{"windows without the variables", Env{GOOS: "windows", LookupEnv: none, Home: `C:\Users\ada\`},
			Dirs{Config: `C:\Users\ada\AppData\Roaming\ragscope`, Cache: `C:\Users\ada\AppData\Local\ragscope`, State: `C:\Users\ada\AppData\Local\ragscope`}},
		{"windows with XDG_STATE_HOME", Env{GOOS: "windows", LookupEnv: vars(map[string]string{"LOCALAPPDATA": `C:\L`, "XDG_STATE_HOME": `D:/state`}), Home: `C:\Users\ada`},
			Dirs{Config: `C:\Users\ada\AppData\Roaming\ragscope`, Cache: `C:\L\ragscope`, State: `D:\state\ragscope`}},
	} {
		got, err := tc.env.Dirs()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

func TestDirsWithoutHome(t *testing.T) {
	env := Env{GOOS: "linux", LookupEnv: vars(map[string]string{"XDG_STATE_HOME": "/s"})}
	d, err := env.Dirs()
	if err == nil || d.State != "/s/ragscope" || d.Config != "" || d.Cache != "" {
		t.Fatalf("dirs %+v, err %v", d, err)
	}
}

func vars(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// errBusy stands for Windows' sharing violation.
var errBusy = errors.New("the process cannot access the file because it is being used by another process")

// fakeRename fails with errBusy the first fails times, then renames.
type fakeRename struct {
	fails, calls int
	waited       time.Duration
}

func (f *fakeRename) replacer(goos string) replacer {
	return replacer{
		goos: goos,
		rename: func(string, string) error {
			f.calls++
			if f.calls <= f.fails {
				return errBusy
			}
			return nil
		},
		busy: func(err error) bool { return errors.Is(err, errBusy) },
		wait: func(d time.Duration) { f.waited += d },
	}
}

func TestReplaceFileRetriesWhileWindowsHoldsTheFile(t *testing.T) {
	f := &fakeRename{fails: 3}
	if err := f.replacer("windows").replace("a.tmp", "a"); err != nil {
		t.Fatal(err)
	}
	if f.calls != 4 {
		t.Fatalf("%d renames, want 4", f.calls)
	}
}

func TestReplaceFileGivesUpWithAReason(t *testing.T) {
	f := &fakeRename{fails: 1 << 30}
	err := f.replacer("windows").replace("a.tmp", `C:\b\a`)
	if !errors.Is(err, errBusy) || !strings.Contains(err.Error(), `another program keeps C:\b\a open`) {
		t.Fatalf("err = %v", err)
	}
	if f.waited < replaceBudget || f.waited > replaceBudget+time.Second || f.calls < 5 {
		t.Fatalf("waited %v over %d tries", f.waited, f.calls)
	}
}

func TestReplaceFileTriesOnceOutsideWindows(t *testing.T) {
	f := &fakeRename{fails: 1}
	if err := f.replacer("linux").replace("a.tmp", "a"); !errors.Is(err, errBusy) || f.calls != 1 || f.waited != 0 {
		t.Fatalf("err %v after %d tries", err, f.calls)
	}
	other := errors.New("no such file")
	r := f.replacer("windows")
	r.rename = func(string, string) error { return other }
	if err := r.replace("a.tmp", "a"); err != other {
		t.Fatalf("a failure that is not a sharing error is returned at once: %v", err)
	}
}

// The real thing on this system: the new content replaces the old (on
// Unix even while a reader holds the old file open).
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	dst, tmp := filepath.Join(dir, "f"), filepath.Join(dir, "f.tmp")
	os.WriteFile(dst, []byte("old"), 0o600)
	os.WriteFile(tmp, []byte("new"), 0o600)
	if runtime.GOOS != "windows" {
		held, err := os.Open(dst)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
	}
	if err := ReplaceFile(tmp, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "new" {
		t.Fatalf("content %q", b)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
}
