package handlers

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// runner runs the handling of messages on a fixed set of long-lived
// goroutines. Handling one goes deep into the validator and the NATS
// client; on the fresh goroutine Watermill starts for every message the
// stack would grow, and be copied, each time (7 % of the gateway's CPU in a
// profile of the bench). The goroutines are started up front, as many as
// messages may be handled at once, so their number never changes. A panic
// is carried back and raised again on the caller's goroutine, where the
// router's Recoverer turns it into a dead letter.
type runner struct {
	jobs    chan runJob
	quit    chan struct{}
	once    sync.Once
	running sync.WaitGroup
}

type runJob struct {
	f    func() error
	done chan runResult
}

type runResult struct {
	err      error
	panicked *PanicError
	goexit   bool // the job called runtime.Goexit
}

// PanicError is a panic raised while handling a message, carried back from
// the runner's goroutine with the stack where it happened: the router's
// Recoverer, which catches it again on the caller's goroutine, only sees
// the runner's.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprint(e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func newRunner(n int) *runner {
	r := &runner{jobs: make(chan runJob), quit: make(chan struct{})}
	for range max(n, 1) {
		r.running.Add(1)
		go r.loop()
	}
	return r
}

// do runs f on one of the runner's goroutines, waiting for one to be free,
// and returns its error or raises its panic (as a *PanicError). A job that
// calls runtime.Goexit ends the caller's goroutine the same way. Once the
// runner is closed, f runs on the caller's goroutine.
func (r *runner) do(f func() error) error {
	job := runJob{f: f, done: make(chan runResult, 1)}
	select {
	case r.jobs <- job:
	case <-r.quit:
		return f()
	}
	res := <-job.done
	switch {
	case res.panicked != nil:
		panic(res.panicked)
	case res.goexit:
		runtime.Goexit()
	}
	return res.err
}

// loop takes jobs until the runner closes.
func (r *runner) loop() {
	defer r.running.Done()
	for {
		select {
		case job := <-r.jobs:
			r.exec(job)
		case <-r.quit:
			return
		}
	}
}

// exec runs one job and always answers it. A job that calls runtime.Goexit
// ends this goroutine: another one takes its place.
func (r *runner) exec(job runJob) {
	var res runResult
	returned := false
	defer func() {
		if p := recover(); p != nil {
			res.panicked = &PanicError{Value: p, Stack: debug.Stack()}
		} else if !returned {
			res.goexit = true
			r.running.Add(1)
			go r.loop()
		}
		job.done <- res
	}()
	res.err = job.f()
	returned = true
}

// close stops the goroutines once their jobs are done; later jobs run on
// their caller's goroutine. Safe to call twice.
func (r *runner) close() {
	r.once.Do(func() {
		close(r.quit)
		r.running.Wait()
	})
}
