package handlers

import "sync"

// runner runs the handling of messages on long-lived goroutines. Handling
// one goes deep into the validator and the NATS client; on the fresh
// goroutine Watermill starts for every message the stack would grow, and
// be copied, each time (7 % of the gateway's CPU in a profile of the
// bench). A goroutine is started only when none is idle, and then kept, so
// there are never more than the most messages ever handled at once, which
// the router bounds (its workers). A panic is carried back and raised again
// on the caller's goroutine, where the router's Recoverer turns it into a
// dead letter.
type runner struct {
	jobs chan runJob
	quit chan struct{}
	once sync.Once

	mu      sync.Mutex // guards closed, count, idle and running.Add
	closed  bool
	count   int // goroutines started and not ended
	idle    int // goroutines done with their job and not yet given another
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

func newRunner() *runner {
	return &runner{jobs: make(chan runJob), quit: make(chan struct{})}
}

// do runs f on one of the runner's goroutines and returns its error, or
// raises its panic. Once the runner is closed, f runs on the caller's
// goroutine.
func (r *runner) do(f func() error) error {
	job := runJob{f: f, done: make(chan runResult, 1)}
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return f()
	case r.idle > 0:
		r.idle--
		r.mu.Unlock()
		select {
		case r.jobs <- job: // the idle goroutine is on its way to take it
		case <-r.quit:
			return f()
		}
	default:
		r.count++
		r.running.Add(1)
		r.mu.Unlock()
		go r.loop(job)
	}
	res := <-job.done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}

func (r *runner) loop(job runJob) {
	defer func() {
		r.mu.Lock()
		r.count--
		r.mu.Unlock()
		r.running.Done()
	}()
	for {
		job.done <- run(job.f)
		r.mu.Lock()
		r.idle++
		r.mu.Unlock()
		select {
		case job = <-r.jobs:
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
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		close(r.quit)
		r.running.Wait()
	})
}
