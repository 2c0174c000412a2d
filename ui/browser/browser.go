// Package browser opens the explorer's citation links in the browser (key
// o): http and https links only, checked by termsafe, with each system's
// own opener. It is a service of the root model.
package browser

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"ragscope/internal/platform"
	"ragscope/termsafe"
)

// Open opens an http or https URL with the platform's opener
// (platform.OpenCommand: open, rundll32's URL handler, xdg-open).
// Other schemes are refused: a payload must not launch arbitrary handlers;
// so is a URL with control or invisible characters (termsafe.URL).
func Open(url string) error {
	return openOn(runtime.GOOS, startOpener)(url)
}

// openOn is Open for the system goos, start running the
// opener: a seam, so tests check each system's command line and that a
// refused link never reaches start.
func openOn(goos string, start func(platform.Command) error) func(string) error {
	return func(url string) error {
		url, err := termsafe.URL(url)
		if err != nil {
			return fmt.Errorf("open link: %w", err)
		}
		if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
			return fmt.Errorf("open %q: only http and https links are opened", url)
		}
		return start(platform.OpenCommand(goos, url))
	}
}

// startOpener runs the browser opener c and waits for it a while.
func startOpener(c platform.Command) error {
	cmd := exec.Command(c.Name, c.Args...)
	// Stdout and stderr stay nil: the opener must not write on the
	// terminal the explorer owns.
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open browser: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("open browser: %w", err)
		}
	case <-time.After(5 * time.Second):
		// Some openers stay attached to the browser; the launch worked.
	}
	return nil
}
