// Package workers owns the fixed pools of long-lived goroutines that
// messages are handled and decisions made on, with their time limits and
// the panics they carry back. It is plumbing, free of the domain and the
// bus: it must never import agentgate's packages, Watermill or nats.go.
package workers

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs the handling of messages on a fixed set of long-lived
// goroutines. Handling one goes deep into the validator and the NATS
// client; on the fresh goroutine Watermill starts for every message the
// stack would grow, and be copied, each time (7 % of the gateway's CPU in a
// profile of the bench). The goroutines are started up front, as many as
// messages may be handled at once, so their number never changes. A panic
// is carried back and raised again on the caller's goroutine, where the
// router's Recoverer turns it into a dead letter.
type Pool struct {
	jobs    chan runJob
	quit    chan struct{}
	once    sync.Once
	running sync.WaitGroup
}

type runJob struct {
	f    func() error
	done chan runResult
	// state, for a job given a time limit (doWithin), is jobRunning until
	// the job returns (jobDone) or its caller stops waiting
	// (jobAbandoned), whichever comes first.
	state *atomic.Int32
	// after, if set, runs once f has returned, even when abandoned.
	after func()
}

// States of a job given a time limit.
const (
	jobRunning int32 = iota
	jobDone
	jobAbandoned
)

type runResult struct {
	err      error
	panicked *PanicError
	goexit   bool // the job called runtime.Goexit
}

// PanicError is a panic raised while handling a message, carried back from
// the pool's goroutine with the stack where it happened: the router's
// Recoverer, which catches it again on the caller's goroutine, only sees
// the pool's.
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

// New starts a pool of n goroutines (at least one).
func New(n int) *Pool {
	r := &Pool{jobs: make(chan runJob), quit: make(chan struct{})}
	for range max(n, 1) {
		r.running.Add(1)
		go r.loop()
	}
	return r
}

// Do runs f on one of the pool's goroutines, waiting for one to be free,
// and returns its error or raises its panic (as a *PanicError). A job that
// calls runtime.Goexit ends the caller's goroutine the same way. Once the
// pool is closed, f runs on the caller's goroutine.
func (r *Pool) Do(f func() error) error {
	job := runJob{f: f, done: make(chan runResult, 1)}
	select {
	case r.jobs <- job:
	case <-r.quit:
		return f()
	}
	return raise(<-job.done)
}

// raise returns a job's error, or raises its panic or Goexit.
func raise(res runResult) error {
	switch {
	case res.panicked != nil:
		panic(res.panicked)
	case res.goexit:
		runtime.Goexit()
	}
	return res.err
}

// DoWithin is Do with a time limit that starts once one of the pool's
// goroutines takes f. When f has not returned by then, doWithin returns
// late: f runs on to its end (Go cannot stop it) with its goroutine lent
// out, and a new goroutine takes its place in the pool, so that the
// pool's capacity is whole again at once. after, if set, runs when f
// returns, late or not: what f holds (its share of the bytes in flight)
// is released only then.
func (r *Pool) DoWithin(f func() error, limit time.Duration, after func()) (err error, late bool) {
	job := runJob{f: f, done: make(chan runResult, 1), state: new(atomic.Int32), after: after}
	select {
	case r.jobs <- job:
	case <-r.quit:
		defer func() {
			if after != nil {
				after()
			}
		}()
		return f(), false
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case res := <-job.done:
		return raise(res), false
	case <-timer.C:
		if job.state.CompareAndSwap(jobRunning, jobAbandoned) {
			r.running.Add(1)
			go r.loop()
			return nil, true
		}
		return raise(<-job.done), false
	}
}

// loop takes jobs until the pool closes.
func (r *Pool) loop() {
	defer r.running.Done()
	for {
		select {
		case job := <-r.jobs:
			if !r.exec(job) {
				return // its caller gave up on it; another took its place
			}
		case <-r.quit:
			return
		}
	}
}

// exec runs one job and always answers it; it reports whether its
// goroutine still belongs to the pool (false when the job's caller
// abandoned it, and another goroutine took its place). A job that calls
// runtime.Goexit ends this goroutine: another one takes its place.
func (r *Pool) exec(job runJob) (keep bool) {
	var res runResult
	returned := false
	defer func() {
		p := recover()
		if job.after != nil {
			job.after()
		}
		keep = job.state == nil || job.state.CompareAndSwap(jobRunning, jobDone)
		switch {
		case p != nil:
			res.panicked = &PanicError{Value: p, Stack: debug.Stack()}
		case !returned && keep:
			res.goexit = true
			r.running.Add(1)
			go r.loop()
		case !returned:
			res.goexit = true
		}
		job.done <- res
	}()
	res.err = job.f()
	returned = true
	return true
}

// Close stops the goroutines once their jobs are done, waiting at most
// limit (0: no limit), and reports whether they all ended in time; later
// jobs run on their caller's goroutine. Safe to call twice.
func (r *Pool) Close(limit time.Duration) bool {
	r.once.Do(func() { close(r.quit) })
	ended := make(chan struct{})
	go func() { r.running.Wait(); close(ended) }()
	if limit <= 0 {
		<-ended
		return true
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-ended:
		return true
	case <-timer.C:
		return false
	}
}
