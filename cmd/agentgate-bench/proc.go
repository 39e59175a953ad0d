package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux platform Go supports.
const clockTicks = 100

// procStats is what /proc says about a process.
type procStats struct {
	CPU   time.Duration // user + system time so far
	RSSKB int64         // VmRSS
	HWMKB int64         // VmHWM: peak RSS over the process's life
	// IOCalls counts the read and write system calls so far (syscr +
	// syscw of /proc/<pid>/io): the round trips to the bus, which unlike
	// CPU time do not move with other work on the box.
	IOCalls int64
}

// readProc reads /proc/<pid>/stat, /proc/<pid>/status and /proc/<pid>/io.
// On systems without /proc it returns zeros and an error; when only io is
// unreadable, the rest and the error.
func readProc(pid int) (procStats, error) {
	var st procStats
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st, err
	}
	// The command name is in parentheses and may hold spaces: fields are
	// counted after the last ')'. utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return st, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	st.CPU = time.Duration(ut+stime) * time.Second / clockTicks
	b, err = os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			st.RSSKB = kb
		case "VmHWM":
			st.HWMKB = kb
		}
	}
	st.IOCalls, err = readIOCalls(strconv.Itoa(pid))
	return st, err
}

// readIOCalls reads syscr + syscw from /proc/<pid>/io (pid may be "self").
func readIOCalls(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/io")
	if err != nil {
		return 0, err
	}
	var n int64
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "syscr" || k == "syscw" {
			c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			n += c
		}
	}
	return n, nil
}

// child is a process under test: this same binary started as
// "agentgate-bench child <role> ...". It prints "ready [info]" on stdout
// once it processes messages, and stops gracefully when its stdin closes
// (or on SIGINT/SIGTERM).
type child struct {
	role   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	info   string // what followed "ready"
	done   chan struct{}
	err    error // the Wait error, once done is closed
	stderr *tailBuffer
}

// startChild starts a child and waits (at most a minute) until it is ready.
func startChild(ctx context.Context, role string, args ...string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := &child{role: role, done: make(chan struct{}), stderr: &tailBuffer{max: 8 << 10}}
	c.cmd = exec.Command(exe, append([]string{"child", role}, args...)...)
	c.cmd.Stderr = c.stderr
	setParentDeathSignal(c.cmd)
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if info, ok := strings.CutPrefix(sc.Text(), "ready"); ok {
				select {
				case ready <- strings.TrimSpace(info):
				default:
				}
			}
		}
	}()
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	timer := time.NewTimer(time.Minute)
	defer timer.Stop()
	select {
	case c.info = <-ready:
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("%s child exited before it was ready: %v: %s", role, c.err, c.stderr)
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	case <-timer.C:
		c.stop()
		return nil, fmt.Errorf("%s child not ready after a minute: %s", role, c.stderr)
	}
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// stats reads the child's /proc figures.
func (c *child) stats() procStats {
	st, _ := readProc(c.pid())
	return st
}

// stop asks the child to finish (closing its stdin), waits up to 30 s and
// kills it after that. It returns an error when the child failed.
func (c *child) stop() error {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s child did not stop within 30 s: killed", c.role)
	}
	if c.err != nil {
		return fmt.Errorf("%s child: %v: %s", c.role, c.err, c.stderr)
	}
	return nil
}

// goMetrics reads a few Go runtime figures from the gateway's /metrics
// (its Prometheus registry has the Go collector).
type goMetrics struct {
	Goroutines int
	HeapInuse  int64
}

func readGoMetrics(ctx context.Context, httpAddr string) (goMetrics, error) {
	var gm goMetrics
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+httpAddr+"/metrics", nil)
	if err != nil {
		return gm, err
	}
	// No keep-alive: an idle connection would be one more goroutine in
	// the gateway between two readings.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return gm, err
	}
	defer resp.Body.Close()
	found := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			gm.Goroutines, found = int(f), true
		case "go_memstats_heap_inuse_bytes":
			gm.HeapInuse = int64(f)
		}
	}
	if !found {
		return gm, errors.New("no go_goroutines in /metrics")
	}
	return gm, sc.Err()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// loadAverage is the 1-minute load average (0 without /proc): a busy box
// skews every figure.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f
}
