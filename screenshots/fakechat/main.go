// Command fakechat serves the in-process fake of OpenAI's chat completions
// API (retrieval/provider/openai/openaitest) on a loopback port, so that every chat
// task of ragscope can be tried without a network or a key, and so that
// screenshots/make.sh can show the Answer pane. It writes the base URL to
// the file named by -url-file and serves until it is interrupted:
//
//	go run ./screenshots/fakechat -url-file /tmp/chat-url &
//	OPENAI_BASE_URL=$(cat /tmp/chat-url) ragscope ask "What is ROS 2?"
//
// Every answer is the first sentence of the context's first source, cited
// as [Source N], streamed a word at a time. The chats that ask for
// structured output are answered by their schema's name (chat.go): the
// judge's relevance grades and faithfulness claims, and golden generate's
// questions and its check, each by word overlap, so the results show a
// spread without a model.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
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
	srv := newServer(150 * time.Millisecond)
	defer srv.Close()
	if err := os.WriteFile(*urlFile, []byte(srv.URL), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fakechat:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}
