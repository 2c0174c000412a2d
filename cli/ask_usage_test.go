package cli

import (
	"strings"
	"testing"

	"ragscope/retrieval/provider/openai/openaitest"
)

// A server that reports no token use is not printed as "0 input + 0
// output tokens".
func TestAskUsageNotReported(t *testing.T) {
	oa := openaitest.NewServer("")
	defer oa.Close()
	oa.Reply(openaitest.ChatReply{Pieces: []string{"A link is a rigid body [Source 1]."}, NoUsage: true})
	env := map[string]string{"OPENAI_BASE_URL": oa.URL}
	code, out, errs := run(t, env, "", "ask", "--chat-model", "llama3.2", "-k", "3", "what is a URDF link?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "usage not reported · first text") || strings.Contains(out, "0 input + 0 output tokens") {
		t.Fatalf("usage line:\n%s", out)
	}
}
