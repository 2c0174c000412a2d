package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksLiveInterrupted: Ctrl+C while `links --live` waits for the
// published site (the fake site holds every request until the client
// goes away) stops the audit with exit 130 and "interrupted", and no
// report is printed. The cancel comes when the site has received the
// first request, not after a delay.
func TestLinksLiveInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}))
	defer srv.Close()
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := range 200 {
		body := fmt.Sprintf("# Page %d\n\n## Wiring %d\n\nThe joint %d is wired to its driver.\n", p, p, p)
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("p%03d.md", p)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb strings.Builder
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: root,
		LookupEnv: func(string) (string, bool) { return "", false }}
	code := app.Run(ctx, []string{"links", "--live", "--docs", docs, "--base-url", srv.URL + "/docs/", "--json"})
	if code != ExitInterrupted || out.String() != "" || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}
