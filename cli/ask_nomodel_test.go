package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Without a chat model, ask prints the ranked list, then the context a
// model would get (as --context shows it), then the error, exit 2.
func TestAskWithoutChatModelPrintsTheContext(t *testing.T) {
	code, out, errs := run(t, nil, "", "ask", "What is ROS 2?")
	if code != ExitConfig {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitConfig, out, errs)
	}
	var q QueryJSON
	if c, doc, e := run(t, nil, "", "query", "--json", "What is ROS 2?"); c != ExitOK || json.Unmarshal([]byte(doc), &q) != nil {
		t.Fatalf("query --json: exit %d: %s", c, e)
	}
	list := strings.Index(out, " 1. [")
	instr := strings.Index(out, "System instruction:\n"+q.Grounded.SystemInstruction)
	ctx := strings.Index(out, "Context (")
	firstSource := strings.SplitN(q.Grounded.Context, "\n", 2)[0]
	if list < 0 || instr < list || ctx < instr || !strings.Contains(out[ctx:], firstSource) {
		t.Fatalf("want the ranked list, then the system instruction, then the context (%q…):\n%s", firstSource, out)
	}
	// The whole grounded context, each source with its rank beside it.
	for _, line := range strings.Split(q.Grounded.Context, "\n") {
		if strings.HasPrefix(line, "[Source ") {
			line += " (rank #"
		}
		if !strings.Contains(out, line) {
			t.Errorf("the grounded context is not printed whole: no %q:\n%s", line, out)
		}
	}
	if !strings.Contains(errs, "the context a model would get follows") || !strings.Contains(errs, "COHERE_API_KEY") || strings.Count(errs, "no chat model") != 1 {
		t.Errorf("stderr: %s", errs)
	}
}

// On a terminal, where stdout and stderr interleave, the missing chat
// model is said first, before the ranked list and the context.
func TestAskWithoutChatModelSaysSoFirst(t *testing.T) {
	var both bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &both, Stderr: &both, Dir: t.TempDir(),
		LookupEnv: func(string) (string, bool) { return "", false }}
	code := app.Run(context.Background(), []string{"ask", "What is ROS 2?"})
	out := both.String()
	first, _, _ := strings.Cut(out, "\n")
	if code != ExitConfig || !strings.HasPrefix(first, "ragscope: Configuration: no chat model configured") || strings.Count(out, "no chat model") != 1 {
		t.Fatalf("exit %d; the first line is not the missing model, said once:\n%s", code, out)
	}
}
