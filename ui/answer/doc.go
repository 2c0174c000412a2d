// Package answer is the explorer's answer pane (a): the chat model's
// answer to the question from the retrieved context, streamed as it
// arrives, with its citations' link states, its usage and the judge's
// check of its claims.
package answer
