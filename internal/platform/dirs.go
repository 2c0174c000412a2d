package platform

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// AppName is the name of ragscope's own folder inside each base folder.
const AppName = "ragscope"

// Env is what the folders depend on: the operating system (a
// runtime.GOOS name), the environment and the home folder.
type Env struct {
	GOOS string
	// LookupEnv looks up an environment variable; nil means none is set.
	LookupEnv func(key string) (string, bool)
	// Home is the user's home folder; "" when unknown.
	Home string
}

// Current is the Env of this process.
func Current() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, LookupEnv: os.LookupEnv, Home: home}
}

// Dirs are ragscope's own folders (each ends in AppName).
type Dirs struct {
	// Config holds settings a user writes.
	Config string
	// Cache holds what can be rebuilt at any time.
	Cache string
	// State holds what ragscope keeps between sessions, such as the
	// question history.
	State string
}

// errNoHome says a folder cannot be named: neither its variable nor the
// home folder is known.
var errNoHome = errors.New("neither the folder's environment variable nor the home folder is set")

// Dirs names ragscope's folders for e. An XDG variable ($XDG_CONFIG_HOME,
// $XDG_CACHE_HOME, $XDG_STATE_HOME) set to an absolute path is honoured on
// every system; otherwise each folder is the system's own place:
//
//	            Linux and BSD     macOS                              Windows
//	config      ~/.config         ~/Library/Application Support     %AppData%
//	cache       ~/.cache          ~/Library/Caches                  %LocalAppData%
//	state       ~/.local/state    ~/Library/Application Support     %LocalAppData%
//
// each followed by /ragscope. A folder that cannot be named is "" and the
// error says why; the others are still set.
func (e Env) Dirs() (Dirs, error) {
	var errs []error
	name := func(p place) string {
		if v := e.lookup(p.xdg); e.isAbs(v) {
			return e.join(v, AppName)
		}
		b, err := e.base(p)
		if err != nil {
			errs = append(errs, err)
			return ""
		}
		return e.join(b, AppName)
	}
	d := Dirs{
		Config: name(place{xdg: "XDG_CONFIG_HOME", unix: []string{".config"}, mac: []string{"Library", "Application Support"}, winVar: "APPDATA", winSub: "Roaming"}),
		Cache:  name(place{xdg: "XDG_CACHE_HOME", unix: []string{".cache"}, mac: []string{"Library", "Caches"}, winVar: "LOCALAPPDATA", winSub: "Local"}),
		// macOS has no folder for state apart from Application Support;
		// Windows keeps it on the machine (%LocalAppData%), not in the
		// roaming profile.
		State: name(place{xdg: "XDG_STATE_HOME", unix: []string{".local", "state"}, mac: []string{"Library", "Application Support"}, winVar: "LOCALAPPDATA", winSub: "Local"}),
	}
	return d, errors.Join(errs...)
}

// place is where one of ragscope's folders goes on each system: a row of
// the table in Dirs.
type place struct {
	// xdg is the XDG variable that names it on every system.
	xdg string
	// unix and mac are its folder under the home folder.
	unix, mac []string
	// winVar is its Windows variable, winSub its usual place in the
	// profile (home\AppData\winSub) when the variable is not set.
	winVar, winSub string
}

// base is p's system folder (the parent of the ragscope folder).
func (e Env) base(p place) (string, error) {
	switch e.GOOS {
	case "darwin", "ios":
		return e.fromHome(p.mac...)
	case "windows":
		return e.windowsDir(p.winVar, p.winSub)
	}
	return e.fromHome(p.unix...)
}

// windowsDir is %key%, else its usual place in the profile
// (home\AppData\sub).
func (e Env) windowsDir(key, sub string) (string, error) {
	if v := e.lookup(key); e.isAbs(v) {
		return v, nil
	}
	return e.fromHome("AppData", sub)
}

func (e Env) fromHome(elem ...string) (string, error) {
	if !e.isAbs(e.Home) {
		return "", errNoHome
	}
	return e.join(append([]string{e.Home}, elem...)...), nil
}

func (e Env) lookup(key string) string {
	if e.LookupEnv == nil {
		return ""
	}
	v, _ := e.LookupEnv(key)
	return v
}

// isAbs reports whether p is an absolute path on e's system (on Windows
// a drive letter and a separator, or a UNC path).
func (e Env) isAbs(p string) bool {
	if e.GOOS != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// join joins path elements with e's separator.
func (e Env) join(elem ...string) string {
	if e.GOOS != "windows" {
		return path.Join(elem...)
	}
	parts := make([]string, 0, len(elem))
	for i, el := range elem {
		el = strings.ReplaceAll(el, "/", `\`)
		if i > 0 {
			el = strings.TrimLeft(el, `\`)
		}
		if i < len(elem)-1 {
			el = strings.TrimRight(el, `\`)
		}
		if el != "" {
			parts = append(parts, el)
		}
	}
	return strings.Join(parts, `\`)
}

// ExpandHome resolves a leading "~/" in path to the home folder; any
// other path, or one when the home folder is unknown, is returned as it
// is.
func ExpandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}
