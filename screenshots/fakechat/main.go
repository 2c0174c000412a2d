// Command fakechat serves the in-process fake of OpenAI's chat completions
// API (retrieval/openai/openaitest) on a loopback port, so that
// screenshots/make.sh can show the Answer pane without a network or a
// key. It writes the base URL to the file named by -url-file and serves
// until it is interrupted. Every answer is the first sentence of the
// context's first source, cited as [Source N], streamed a word at a time.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"ragscope/retrieval/openai/openaitest"
)

func main() {
	urlFile := flag.String("url-file", "", "write the server's base URL (…/v1) to this file")
	flag.Parse()
	if *urlFile == "" {
		fmt.Fprintln(os.Stderr, "fakechat: -url-file is required")
		os.Exit(64)
	}
	// An empty key: the fake takes requests without an Authorization
	// header, as a local OpenAI-compatible server does.
	srv := openaitest.NewServer("")
	defer srv.Close()
	srv.SetLatency(150 * time.Millisecond)
	if err := os.WriteFile(*urlFile, []byte(srv.URL), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fakechat:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}
