//go:build race

package eval_test

// raceEnabled: the race detector slows everything several times.
const raceEnabled = true
