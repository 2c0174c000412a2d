// Package clipboard copies the explorer's text out: inside tmux into
// tmux's buffer, else to the system clipboard, else by OSC 52 to the
// terminal's; its message says which took it.
package clipboard
