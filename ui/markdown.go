package ui

import ()

// The detail pane's markdown renderer: goldmark's CommonMark parser and
// lipgloss styles, drawn the way glamour's standard styles draw (heading
// prefixes, emphasis, bullets and numbers, indented code blocks, quotes,
// link text followed by its URL, a two-cell document margin). glamour
// itself is not linked: its code highlighting brings chroma, whose lexer
// and style registries are built at package initialisation (25-40 ms and
// 4 MB of every process, the CLI's included), and bluemonday's CSS tables
// (5 ms), for chunk text that is mostly prose.
