package cli

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"ragscope/retrieval/provider/cohere/coheretest"
)

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx) for tests that
// need standard output to be a terminal.
func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pty's terminal: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// On a terminal the answer streams: each piece is printed, sanitised, as it
// arrives (the server sends the rest only once the first is on the
// terminal), and is not printed again at the end.
func TestAskStreamsOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	co := coheretest.NewServer(testChatKey)
	defer co.Close()
	hold := make(chan struct{})
	co.Reply(coheretest.ChatReply{
		Pieces:    []string{"Nodes talk ", "over \x1b[2Jtopics", " and services."},
		Citations: []coheretest.ChatCitation{{Start: 0, End: 36, DocIDs: []string{"source-1"}}},
		Hold:      hold,
	})
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		released := false
		for {
			n, err := master.Read(buf)
			got.Write(buf[:n])
			if strings.Contains(got.String(), "Nodes talk") && !released {
				released = true
				close(hold) // the first piece is on the terminal: send the rest
			}
			if err != nil || strings.Contains(got.String(), "output tokens") {
				return
			}
		}
	}()
	var errb bytes.Buffer
	env := map[string]string{"COHERE_API_KEY": testChatKey, "COHERE_BASE_URL": co.URL}
	app := &App{Stdin: strings.NewReader(""), Stdout: slave, Stderr: &errb, Dir: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	// Without streaming the first piece never shows, the server never
	// sends the rest and the run ends with this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := app.Run(ctx, []string{"ask", "how do ROS 2 nodes communicate?"})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the output never ended")
	}
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	out := strings.ReplaceAll(got.String(), "\r\n", "\n")
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape sequence reached the terminal: %q", out)
	}
	if strings.Count(out, "Nodes talk over topics and services.") != 1 || !strings.Contains(out, "Nodes talk over topics and services.\n") {
		t.Errorf("the streamed answer is missing or printed twice:\n%s", out)
	}
}
