// Command floor is the start-up floor of ragscope's fixed stack: it links
// only the packages of the mandated SDKs that ragscope itself imports
// (Gemini, OpenAI, Qdrant, Cohere, Bubble Tea, Lip Gloss) and returns.
// Go initialises every linked package, so no ragscope process can start
// faster than this one; BenchmarkProcessFloor runs it beside
// BenchmarkProcessHelp, and TestFloorImportsTheMandatedSDKs keeps its
// import list in step with ragscope's.
package main

import (
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/cohere-ai/cohere-go/v2"
	_ "github.com/cohere-ai/cohere-go/v2/option"
	_ "github.com/cohere-ai/cohere-go/v2/v2"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/option"
	_ "github.com/qdrant/go-client/qdrant"
	_ "google.golang.org/genai"
)

func main() {}
