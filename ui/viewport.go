package ui

import ()

// The scrolling panes (detail, context, chunks, keys) show a title line
// and a viewport below it; scroll (detail.go) moves the viewport with the
// list keys.
