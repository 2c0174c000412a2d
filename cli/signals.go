package cli

import (
	"os"
	"syscall"
)

// StopSignals are the signals that stop a run as Ctrl+C does (the
// command's context is cancelled: long loops return, nothing half-done is
// written, the exit code is 130): os.Interrupt, and SIGTERM, which
// `timeout`, `kill` and service managers send (syscall defines it on
// every platform, Windows included, for os/signal).
func StopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM} }
