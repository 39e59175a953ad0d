package handlers

import (
	"runtime"
	"sync"

	"github.com/agentgate/agentgate/contract"
)

// decider runs Gate.Decide on a few long-lived goroutines. A decision
// recurses deep into the validator; on the fresh goroutine Watermill starts
// for every message, the stack would grow, and be copied, each time (7 % of
// the gateway's CPU in a profile of the bench). A panic in Decide is carried
// back and raised again on the caller's goroutine, where the router's
// Recoverer turns it into a dead letter.
type decider struct {
	gate *Gate
	jobs chan decideJob
	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

type decideJob struct {
	env  Envelope
	st   *contract.RunState
	done chan decideResult
}

type decideResult struct {
	d        Decision
	panicked any
}

// newDecider starts GOMAXPROCS goroutines: deciding is CPU work.
func newDecider(g *Gate) *decider {
	dc := &decider{gate: g, jobs: make(chan decideJob), quit: make(chan struct{})}
	for range runtime.GOMAXPROCS(0) {
		dc.wg.Add(1)
		go dc.work()
	}
	return dc
}

func (dc *decider) work() {
	defer dc.wg.Done()
	for {
		select {
		case job := <-dc.jobs:
			job.done <- dc.run(job)
		case <-dc.quit:
			return
		}
	}
}

func (dc *decider) run(job decideJob) (res decideResult) {
	defer func() {
		if r := recover(); r != nil {
			res.panicked = r
		}
	}()
	return decideResult{d: dc.gate.Decide(job.env, job.st)}
}

// decide is Gate.Decide, run on the decider's goroutines.
func (dc *decider) decide(env Envelope, st *contract.RunState) Decision {
	done := make(chan decideResult, 1)
	select {
	case dc.jobs <- decideJob{env: env, st: st, done: done}:
	case <-dc.quit:
		// Closed while messages are still handled: decide right here.
		return dc.gate.Decide(env, st)
	}
	res := <-done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.d
}

// close stops the goroutines, after the decisions they took are done; a
// decision asked later is made on the caller's goroutine. Safe to call
// twice.
func (dc *decider) close() {
	dc.once.Do(func() {
		close(dc.quit)
		dc.wg.Wait()
	})
}
