package cli

import (
	"fmt"
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
		f, err := openDebugLog(a.Cfg.DebugLog)
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

// openDebugLog opens the --debug file for appending, creating it with mode
// 0600; a file that already exists is narrowed to 0600 too, as the log
// holds the resolved configuration and backend details.
func openDebugLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("make it private (mode 0600): %w", err)
		}
	}
	return f, nil
}
