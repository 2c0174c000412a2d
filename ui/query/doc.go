// Package query is the explorer's question box: a text input with the
// question history (up and down recall past questions).
package query
