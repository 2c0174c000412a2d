package qdrant

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"ragscope/retrieval/store/qdrant/qdranttest"
)

const testKey = "qd-test-key-SECRET-9876"

func TestMain(m *testing.M) {
	SilenceGRPCLogs(io.Discard)
	os.Exit(m.Run())
}

// startFake starts a fake Qdrant with both textbook collections.
func startFake(t testing.TB, opts qdranttest.Options) *qdranttest.Server {
	t.Helper()
	srv, err := qdranttest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	srv.AddCollection(qdranttest.TextbookA())
	srv.AddCollection(qdranttest.TextbookB())
	return srv
}

func open(t testing.TB, o Options) *Store {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
