// Package selection is the explorer's selected-text mode inputs: the
// selected text, its source document and section.
package selection
