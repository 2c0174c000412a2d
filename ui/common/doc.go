// Package common is what every pane of the explorer shares: the pane
// contract (Pane, Base), the key map, the styles, the result row (Item)
// with its marks, the chunk text's Markdown rendering, the fuzzy picker
// list and the small drawing helpers (boxes, truncation, wrapping, list
// hints, viewports). A pane package imports common and present, never
// another pane package.
package common
