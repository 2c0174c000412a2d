package chattask

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
)

// UserMark separates a prompt file's system part from its user template.
const UserMark = "\n---- user ----\n"

// Prompt is a parsed prompt file: a system instruction, then a user
// message template after UserMark.
type Prompt struct {
	// System is the system instruction.
	System string
	// User is the user message's template (missing keys are errors).
	User *template.Template
	// Version is the file's base name and a hash of its text
	// ("relevance-v1+0123456789ab"): any edit to the file changes it, so
	// cache keys that hold it miss.
	Version string
}

// LoadPrompt reads and parses the prompt file name of fsys (prompt files
// are embedded, so an error is a build mistake: tests load every file).
func LoadPrompt(fsys fs.FS, name string) (Prompt, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Prompt{}, fmt.Errorf("prompt %s: %w", name, err)
	}
	system, user, ok := strings.Cut(string(b), UserMark)
	if !ok {
		return Prompt{}, fmt.Errorf("prompt %s: no %q line", name, strings.TrimSpace(UserMark))
	}
	t, err := template.New(name).Option("missingkey=error").Parse(user)
	if err != nil {
		return Prompt{}, fmt.Errorf("prompt %s: %w", name, err)
	}
	base := strings.TrimSuffix(path.Base(name), ".txt")
	return Prompt{System: strings.TrimSpace(system), User: t, Version: base + "+" + chatcache.Hash(string(b))[:12]}, nil
}

// Render is the chat prompt of data, asking for schema.
func (p Prompt) Render(data any, schema *retrieval.Schema) (retrieval.Prompt, error) {
	var buf bytes.Buffer
	if err := p.User.Execute(&buf, data); err != nil {
		return retrieval.Prompt{}, fmt.Errorf("prompt %s: %w", p.Version, err)
	}
	return retrieval.Prompt{Question: strings.TrimSpace(buf.String()), Instruction: p.System, Schema: schema}, nil
}
