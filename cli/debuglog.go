package cli

import (
	"io"
	"log/slog"
	"os"
)

// debugWriter is the --debug log file, opened once per run, or io.Discard.
// Library logs go here and never to the terminal.
func (a *App) debugWriter() io.Writer {
	if a.Cfg.DebugLog == "" {
		return io.Discard
	}
	if a.debugFile == nil {
		f, err := os.OpenFile(a.Cfg.DebugLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return io.Discard
		}
		a.debugFile = f
	}
	return a.debugFile
}

// debugLogger is a logger writing to the debug log.
func (a *App) debugLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.debugWriter(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}
