package cli

import (
	"errors"

	"ragscope/config"
	"ragscope/retrieval"
)

// tuiGenerator is the chat model the explorer's Answer pane asks (the one
// `ragscope ask` uses), or, when there is none, the text saying which
// settings enable one; a chat model that is misconfigured says what to
// fix.
func (a *App) tuiGenerator() (retrieval.Generator, string) {
	g, err := a.openGenerator()
	switch {
	case err == nil:
		return g, ""
	case errors.Is(err, retrieval.ErrNoGenerator):
		return nil, "To enable answers, " + config.ChatHint + ". RAGSCOPE_CHAT_PROVIDER (auto, cohere or openai) and RAGSCOPE_CHAT_MODEL pick the provider and the model."
	}
	return nil, "The chat model cannot be used: " + Message(err)
}
