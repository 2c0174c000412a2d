// Package contextpane is the explorer's context pane (c): the grounded
// context a chatbot would send its model, as the retrieval built it.
package contextpane
