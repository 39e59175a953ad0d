package handlers

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestRunner(t *testing.T) {
	t.Parallel()
	r := newRunner()
	errBoom := errors.New("boom")
	if err := r.do(func() error { return errBoom }); !errors.Is(err, errBoom) {
		t.Fatalf("do = %v, want the job's error", err)
	}

	// A panic comes back on the caller's goroutine.
	func() {
		defer func() {
			if p := recover(); p != "poison" {
				t.Errorf("recovered %v, want the job's panic", p)
			}
		}()
		_ = r.do(func() error { panic("poison") })
		t.Error("do returned after a panic")
	}()

	// Goroutines are reused: jobs one after another need one, and jobs
	// at once never more than there are of them.
	var started atomic.Int32
	for range 100 {
		_ = r.do(func() error { return nil })
	}
	if got := goroutinesOf(r); got != 1 {
		t.Errorf("%d goroutines after jobs one at a time, want 1", got)
	}
	const concurrent = 5
	release := make(chan struct{})
	var inJob sync.WaitGroup
	inJob.Add(concurrent)
	var callers sync.WaitGroup
	for range concurrent {
		callers.Go(func() {
			_ = r.do(func() error { started.Add(1); inJob.Done(); <-release; return nil })
		})
	}
	inJob.Wait()
	close(release)
	callers.Wait()
	if got := goroutinesOf(r); got != concurrent || started.Load() != concurrent {
		t.Errorf("%d goroutines for at most %d jobs at once", got, concurrent)
	}

	r.close()
	r.close()
	ran := false
	_ = r.do(func() error { ran = true; return nil })
	if !ran || goroutinesOf(r) != 0 {
		t.Errorf("after close: ran %v, goroutines %d; want the job run inline and none left", ran, goroutinesOf(r))
	}
}

// goroutinesOf counts the runner's goroutines.
func goroutinesOf(r *runner) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.count)
}
