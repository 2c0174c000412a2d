package qdrant

import (
	"io"
	"sync"

	"google.golang.org/grpc/grpclog"
)

// grpcLogOnce guards grpclog.SetLoggerV2, which must run once, before any
// gRPC activity, and is not safe to call concurrently.
var grpcLogOnce sync.Once

// SilenceGRPCLogs sends grpc-go's own logger (grpclog), which prints
// transport errors to stderr by default, to w (nil means discard). Only the
// first call has an effect; call it early in main, before any connection,
// so nothing reaches the terminal the TUI owns.
func SilenceGRPCLogs(w io.Writer) {
	grpcLogOnce.Do(func() {
		if w == nil {
			w = io.Discard
		}
		grpclog.SetLoggerV2(grpclog.NewLoggerV2(w, w, w))
	})
}
