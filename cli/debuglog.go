package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"ragscope/config"
	"ragscope/internal/platform"
	"ragscope/internal/redact"
)

// debugWriter is the --debug log file, opened once per run, or io.Discard.
// Library logs go here and never to the terminal. Every write is redacted
// (redactingWriter): no URL credential or configured key reaches the file,
// whatever a library logs.
func (a *App) debugWriter() io.Writer {
	if a.Cfg.DebugLog == "" {
		return io.Discard
	}
	if a.debugFile == nil {
		f, err := openDebugLog(context.Background(), a.Cfg.DebugLog)
		if err != nil {
			return io.Discard
		}
		a.debugFile = f
	}
	return a.redacting(a.debugFile)
}

// debugLogger is a logger writing to the debug log.
func (a *App) debugLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.debugWriter(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// secrets are the credential values of the configuration and of the
// setups a comparison opened (config.Config.Secrets: every secret setting,
// the providers' keys among them, and the credentials written in every
// URL setting).
func (a *App) secrets() []string {
	var out []string
	for _, c := range append([]config.Config{a.Cfg}, a.armCfgs...) {
		out = append(out, c.Secrets()...)
	}
	return out
}

// redactText is s with the configuration's secrets and every URL
// credential hidden (redact.Secrets).
func (a *App) redactText(s string) string { return redact.Secrets(s, a.secrets()...) }

// redacting wraps w so that every write hides the configuration's secrets
// as they are now and every URL credential (redactText). Loggers write a
// record in one call, so a credential is never split between two writes.
func (a *App) redacting(w io.Writer) io.Writer { return redactingWriter{w: w, secrets: a.secrets()} }

type redactingWriter struct {
	w       io.Writer
	secrets []string
}

// Write writes p redacted; it reports len(p) on success, as the caller's
// bytes were all consumed.
func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.Secrets(string(p), r.secrets...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// openDebugLog opens the --debug file for appending (platform.OpenAppend:
// a link is written through, a named pipe or a device written to),
// creating it with mode 0600; a file that already exists is narrowed to
// 0600 too, as the log holds the resolved configuration and backend
// details.
func openDebugLog(ctx context.Context, path string) (*os.File, error) {
	f, err := platform.OpenAppend(ctx, path, 0o600)
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
