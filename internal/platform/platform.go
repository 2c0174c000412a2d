// Package platform holds what differs between the operating systems
// ragscope runs on: the program that opens a link in the browser, the
// program that takes text for the clipboard, the folders ragscope keeps
// its files in, and replacing a file atomically.
//
// Every choice takes the operating system as a value (a runtime.GOOS name)
// so that tests on Linux check the macOS and Windows command lines and
// folders; the callers pass runtime.GOOS.
package platform

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf16"

	"ragscope/termsafe"
)

// Command is a program to run: its name, arguments, extra environment
// (added to the current one) and the bytes it reads on standard input.
type Command struct {
	Name  string
	Args  []string
	Env   []string
	Stdin []byte
}

// String is the command line, for messages and tests.
func (c Command) String() string {
	return strings.Join(append([]string{c.Name}, c.Args...), " ")
}

// OpenCommand is the command that opens url (an http or https link the
// caller has already checked) in the browser on goos: open on macOS;
// rundll32's URL handler on Windows, which passes the link to the browser
// without a shell (cmd /c start would read & and ^ in it); xdg-open
// elsewhere. On Windows a space or double quote in the link is
// percent-encoded, so the argument is never quoted on the command line
// (rundll32 would hand the quotes to the browser).
func OpenCommand(goos, url string) Command {
	switch goos {
	case "darwin":
		return Command{Name: "open", Args: []string{url}}
	case "windows":
		return Command{Name: "rundll32", Args: []string{"url.dll,FileProtocolHandler", windowsURLArg(url)}}
	default:
		return Command{Name: "xdg-open", Args: []string{url}}
	}
}

// windowsURLArg percent-encodes the characters of url that the Windows
// command line would quote or split on.
func windowsURLArg(url string) string {
	if !strings.ContainsAny(url, " \t\"") {
		return url
	}
	var b strings.Builder
	for i := 0; i < len(url); i++ {
		switch c := url[i]; c {
		case ' ', '\t', '"':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// CopyCommand is the command that puts text on the clipboard of goos, and
// false where no one command does (Linux and the BSDs, where xclip, xsel
// or wl-copy is found at run time). On macOS it is pbcopy with a UTF-8
// locale (without one, pbcopy reads non-ASCII text as Mac Roman); on
// Windows clip.exe, given UTF-16LE with a byte order mark (without the
// mark clip.exe reads the console's code page, and non-ASCII text
// arrives garbled) and lines ending in CR LF, as Windows programs expect.
func CopyCommand(goos, text string) (Command, bool) {
	switch goos {
	case "darwin":
		return Command{Name: "pbcopy", Env: []string{"LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8"}, Stdin: []byte(text)}, true
	case "windows":
		return Command{Name: "clip.exe", Stdin: UTF16LEWithBOM(crlf(text))}, true
	}
	return Command{}, false
}

// crlf ends every line of s with CR LF.
func crlf(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// UTF16LEWithBOM encodes s as UTF-16, little-endian, after the byte order
// mark FF FE; invalid UTF-8 becomes U+FFFD.
func UTF16LEWithBOM(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := make([]byte, 2, 2+2*len(units))
	out[0], out[1] = 0xFF, 0xFE
	for _, u := range units {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// Run runs c and waits for it. Its output is captured, never written to
// the terminal (the explorer owns it); what it wrote on standard error,
// made safe to show, is part of the error.
func Run(ctx context.Context, c Command) error {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	if len(c.Env) > 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if msg := termsafe.Line(errb.String()); msg != "" {
			return fmt.Errorf("%s: %s: %w", c.Name, msg, err)
		}
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}
