// Package keyhelp is the explorer's full help ('?'): every live key of
// the focused pane and of the explorer, flowed into columns in the body's
// place and scrolled with the list keys.
package keyhelp
