package openai

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/openai/openaitest"
)

// The embedder and the chat use the SDK's embeddings and chat completions
// services alone, yet with the options the SDK's Client would give them:
// the SDK's OPENAI_* environment defaults apply, and ragscope's own base
// URL and key win over them.
func TestServicesKeepTheClientDefaults(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org-ragscope-test")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // loses to Options.BaseURL
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")

	e, srv := newTest(t, Options{})
	if _, err := e.Embed(context.Background(), []string{"gait"}); err != nil {
		t.Fatal(err)
	}
	h := srv.LastHeaders()
	if got := h.Get("OpenAI-Organization"); got != "org-ragscope-test" {
		t.Errorf("embeddings: OpenAI-Organization = %q", got)
	}
	if got := h.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("embeddings: Authorization = %q, want ragscope's key", got)
	}

	chat := openaitest.NewServer("sk-chat")
	defer chat.Close()
	chat.Reply(openaitest.ChatReply{Pieces: []string{"Nodes talk [Source 1]."}})
	if _, err := retrieval.Generate(context.Background(), newTestChat(t, chat, "", 0), chatResult(), func(retrieval.Delta) {}); err != nil {
		t.Fatal(err)
	}
	h = chat.LastHeaders()
	if got := h.Get("OpenAI-Organization"); got != "org-ragscope-test" {
		t.Errorf("chat: OpenAI-Organization = %q", got)
	}
	if got := h.Get("Authorization"); got != "Bearer sk-chat" {
		t.Errorf("chat: Authorization = %q, want ragscope's key", got)
	}
}

// The SDK's Client is never built: it holds every service of the API, and
// referring to it links all their types and methods (22 MB of the binary,
// paid in page faults by every process, `ragscope --help` included).
func TestSDKClientNotUsed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "sdk" && (sel.Sel.Name == "Client" || sel.Sel.Name == "NewClient") {
					t.Errorf("%s: sdk.%s (use the service alone)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
