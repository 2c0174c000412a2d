// Package linkcheck checks the citation links of the result on show in
// the background, a few at a time, and keeps their states for the panes
// that draw them.
package linkcheck
