//go:build !race

package ui

// raceEnabled scales timing budgets: the race detector slows code ~10x.
const raceEnabled = false
