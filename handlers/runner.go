package handlers

import "sync"

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
	panicked any
}

// newRunner starts n goroutines (at least one).
func newRunner(n int) *runner {
	r := &runner{jobs: make(chan runJob), quit: make(chan struct{})}
	for range max(n, 1) {
		r.running.Go(r.loop)
	}
	return r
}

// do runs f on one of the runner's goroutines, waiting for one to be free,
// and returns its error or raises its panic. Once the runner is closed, f
// runs on the caller's goroutine.
func (r *runner) do(f func() error) error {
	job := runJob{f: f, done: make(chan runResult, 1)}
	select {
	case r.jobs <- job:
	case <-r.quit:
		return f()
	}
	res := <-job.done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}

func (r *runner) loop() {
	for {
		select {
		case job := <-r.jobs:
			job.done <- run(job.f)
		case <-r.quit:
			return
		}
	}
}

func run(f func() error) (res runResult) {
	defer func() {
		if p := recover(); p != nil {
			res.panicked = p
		}
	}()
	return runResult{err: f()}
}

// close stops the goroutines once their jobs are done; later jobs run on
// their caller's goroutine. Safe to call twice.
func (r *runner) close() {
	r.once.Do(func() {
		close(r.quit)
		r.running.Wait()
	})
}
