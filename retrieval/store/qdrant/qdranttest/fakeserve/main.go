// Command fakeserve runs the in-process Qdrant (gRPC) and Cohere (/v2/embed)
// test servers on loopback until interrupted, and prints the environment
// that points ragscope at them. It is for trying the Qdrant backend by hand
// and for screenshots on a machine with no network:
//
//	go run ./retrieval/store/qdrant/qdranttest/fakeserve
//	# then, in another shell, paste the printed exports and run ragscope
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"

	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/gemini/geminitest"
	"ragscope/retrieval/provider/openai/openaitest"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

func main() {
	embedLatency := flag.Duration("embed-latency", 0, "latency of each Cohere call")
	searchLatency := flag.Duration("search-latency", 0, "latency of each Qdrant call")
	strict := flag.Bool("strict-filters", false, "refuse a filter on a payload key without an index, like a strict Qdrant (collection "+qdranttest.CollectionA+" has no index on tags: try query --tag ros2)")
	flag.Parse()

	const qdrantKey, cohereKey = "fake-qdrant-key", "fake-cohere-key"
	qs, err := qdranttest.Start(qdranttest.Options{APIKey: qdrantKey, Latency: *searchLatency, StrictFilters: *strict})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeserve:", err)
		os.Exit(1)
	}
	defer qs.Close()
	a := qdranttest.TextbookA()
	if *strict {
		delete(a.Indexed, "tags")
	}
	qs.AddCollection(a)
	qs.AddCollection(qdranttest.TextbookB())
	qs.AddCollection(qdranttest.TextbookHybrid())
	co := coheretest.NewServer(cohereKey)
	defer co.Close()
	co.SetLatency(*embedLatency)

	fmt.Printf("export QDRANT_URL=%s\n", qs.URL())
	fmt.Printf("export QDRANT_API_KEY=%s\n", qdrantKey)
	fmt.Printf("export QDRANT_COLLECTION=%s   # or %s (nested LangChain-style payload), %s (dense + bm25 sparse: hybrid)\n", qdranttest.CollectionA, qdranttest.CollectionB, qdranttest.CollectionHybrid)
	fmt.Printf("export COHERE_API_KEY=%s\n", cohereKey)
	fmt.Printf("export COHERE_BASE_URL=%s\n", co.URL)
	// an OpenAI-compatible embeddings server too.
	oa := openaitest.NewServer("fake-openai-key")
	defer oa.Close()
	oa.SetLatency(*embedLatency)
	fmt.Printf("export OPENAI_API_KEY=fake-openai-key   # with --embedder openai\n")
	fmt.Printf("export OPENAI_BASE_URL=%s\n", oa.URL)
	gm := geminitest.NewServer("fake-gemini-key")
	defer gm.Close()
	fmt.Printf("export GEMINI_API_KEY=fake-gemini-key   # with --embedder gemini\n")
	fmt.Printf("export GEMINI_BASE_URL=%s\n", gm.URL)
	fmt.Fprintln(os.Stderr, "serving on loopback; Ctrl+C to stop")

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}
