package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// Whole-process start-up figures: each benchmark builds the binary once
// and runs it as a user does, so package initialisation, faulting in the
// executable and the first frame all count (an in-process benchmark sees
// none of them).
//
//	go test ./cli -run '^$' -bench Process -benchtime 20x
//
// reports ms/op (wall time per run), cpu-ms/op (user and system time),
// and for the explorer first-frame-ms (median time from spawn to "Ask ›"
// read back from the pty) and its minimum, peak-MB (VmHWM once the frame
// is up and the heap settled) and rss-MB (VmRSS then).
// RAGSCOPE_BENCH_BIN=path measures another build.

// startupBinary is the binary a process benchmark runs, in its own
// temporary folder: a copy of $RAGSCOPE_BENCH_BIN when set (to compare
// builds with the same harness), else of this tree's build (the build
// cache makes each one a link), written, synced and dropped from the page
// cache. A file fresh in the page cache is mapped in larger blocks per
// fault, which inflates the resident size by 10-15 MB; dropped, it is read
// back the way an installed binary is after a restart.
func startupBinary(b *testing.B) string {
	b.Helper()
	return startupBinaryOf(b, "ragscope", os.Getenv("RAGSCOPE_BENCH_BIN"))
}

// startupBinaryOf is startupBinary for the main package pkg, or for the
// binary src when src is set.
func startupBinaryOf(b *testing.B, pkg, src string) string {
	b.Helper()
	dir := b.TempDir()
	if src == "" {
		src = filepath.Join(dir, "ragscope.built")
		cmd := exec.Command("go", "build", "-o", src, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "ragscope")
	f, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	// posix_fadvise(POSIX_FADV_DONTNEED) on the whole file.
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, 4, 0, 0); e != 0 {
		b.Fatalf("drop %s from the page cache: %v", bin, e)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return bin
}

// processEnv is a clean environment: no keys (the demo backend), state in
// a temporary home, a 256-colour terminal.
func processEnv(tb testing.TB) []string {
	home := tb.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + home, "TERM=xterm-256color", "COLORTERM=truecolor"}
}

// runProcess runs bin with args to the end and returns its CPU time (user
// and system), which a busy machine inflates less than the wall time.
// (Its rusage's peak RSS is not the child's own: Go starts it with vfork,
// whose share of the parent's memory counts; /usr/bin/time -f %M reports
// it.)
func runProcess(b *testing.B, bin string, env []string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// benchRuns runs bin with args once per iteration and reports the wall
// time (ms/op) and CPU time (cpu-ms/op) per run; what came before it in
// the benchmark (builds, corpora) is not timed.
func benchRuns(b *testing.B, bin string, env []string, args ...string) {
	b.Helper()
	var cpu time.Duration
	for b.Loop() {
		cpu += runProcess(b, bin, env, args...)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkProcessHelp is `ragscope --help` end to end (budget 30 ms).
func BenchmarkProcessHelp(b *testing.B) {
	bin := startupBinary(b)
	env := processEnv(b)
	benchRuns(b, bin, env, "--help")
}

// BenchmarkProcessFloor is the floor under BenchmarkProcessHelp: a
// program that links only the mandated SDKs' packages ragscope imports
// (testdata/floor) and returns, run the same way.
func BenchmarkProcessFloor(b *testing.B) {
	bin := startupBinaryOf(b, "ragscope/cli/testdata/floor", "")
	env := processEnv(b)
	benchRuns(b, bin, env, "--help")
}

// BenchmarkProcessDemoQuery is one `ragscope query` on the demo end to end
// (budget 120 ms).
func BenchmarkProcessDemoQuery(b *testing.B) {
	bin := startupBinary(b)
	env := processEnv(b)
	benchRuns(b, bin, env, "--backend", "demo", "query", "How do ROS 2 nodes communicate?")
}

// BenchmarkProcessTUIFirstFrame spawns the explorer on the demo on a
// 120x40 pty and times it until the first frame's "Ask ›" is read back
// (budget 200 ms), then reads its memory once the heap settled (budget
// 60 MB) and quits it with ctrl+c.
func BenchmarkProcessTUIFirstFrame(b *testing.B) {
	bin := startupBinary(b)
	env := processEnv(b)
	var frames []time.Duration
	var peak, rss int64
	for b.Loop() {
		f, p, r := firstFrame(b, bin, env)
		frames = append(frames, f)
		peak, rss = max(peak, p), max(rss, r)
	}
	// The median and the minimum: on a shared machine the mean follows
	// the other processes' load.
	slices.Sort(frames)
	b.ReportMetric(float64(frames[len(frames)/2].Microseconds())/1e3, "first-frame-ms")
	b.ReportMetric(float64(frames[0].Microseconds())/1e3, "min-first-frame-ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
}

// firstFrame runs the explorer once: the time to its first frame, then
// its peak and current resident size 600 ms after the start.
func firstFrame(b *testing.B, bin string, env []string) (time.Duration, int64, int64) {
	master, slave := openPTY(b)
	ws := struct{ row, col, x, y uint16 }{40, 120, 0, 0}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, slave.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		b.Fatalf("set the pty's size: %v", e)
	}
	cmd := exec.Command(bin, "--backend", "demo")
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	seen := make(chan struct{})
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("start: %v", err)
	}
	go func() {
		var got []byte
		buf := make([]byte, 32<<10)
		signalled := false
		for {
			n, err := master.Read(buf)
			if !signalled {
				got = append(got, buf[:n]...)
				if bytes.Contains(got, []byte("Ask ›")) {
					close(seen)
					signalled = true
				}
			}
			if err != nil {
				return
			}
		}
	}()
	var frame time.Duration
	select {
	case <-seen:
		frame = time.Since(start)
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatal("no first frame in 10 s")
	}
	time.Sleep(600*time.Millisecond - time.Since(start))
	peak, rss := procMemory(b, cmd.Process.Pid)
	_, _ = master.Write([]byte{3}) // ctrl+c
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		b.Fatal("ctrl+c did not quit the explorer")
	}
	return frame, peak, rss
}

// procMemory reads VmHWM and VmRSS of pid, in bytes.
func procMemory(b *testing.B, pid int) (peak, rss int64) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatalf("read the explorer's memory: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = kb << 10
		case "VmRSS:":
			rss = kb << 10
		}
	}
	return peak, rss
}

// BenchmarkProcessIndexQuery is one `ragscope --index F query` end to end
// on generated corpora of about 11,000 and 44,000 chunks (budgets 150 ms
// and 300 ms): the load of the index file included. The index is built
// once per size, outside the timing.
func BenchmarkProcessIndexQuery(b *testing.B) {
	bin := startupBinary(b)
	env := processEnv(b)
	for _, pages := range []int{1000, 4000} {
		b.Run("pages="+strconv.Itoa(pages), func(b *testing.B) {
			dir := b.TempDir()
			docs := filepath.Join(dir, "site")
			gen := exec.Command("go", "run", "./retrieval/store/local/testdata/gencorpus", "-pages", strconv.Itoa(pages), "-out", docs)
			gen.Dir = ".."
			if out, err := gen.CombinedOutput(); err != nil {
				b.Fatalf("gencorpus: %v\n%s", err, out)
			}
			idx := filepath.Join(dir, "docs.idx")
			runProcess(b, bin, env, "index", docs, "-o", idx)
			benchRuns(b, bin, env, "--index", idx, "query", "How do ROS 2 nodes communicate?")
		})
	}
}
