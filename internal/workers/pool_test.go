package workers

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPool(t *testing.T) {
	t.Parallel()
	const size = 3
	r := New(size)
	errBoom := errors.New("boom")
	if err := r.Do(func() error { return errBoom }); !errors.Is(err, errBoom) {
		t.Fatalf("do = %v, want the job's error", err)
	}

	// A panic comes back on the caller's goroutine, with the stack where it
	// happened, and the pool goes on.
	func() {
		defer func() {
			pe, ok := recover().(*PanicError)
			if !ok || pe.Value != "poison" || pe.Error() != "poison" || !strings.Contains(string(pe.Stack), "poisonedJob") {
				t.Errorf("recovered %#v, want the job's panic with its stack", pe)
			}
		}()
		_ = r.Do(poisonedJob)
		t.Error("do returned after a panic")
	}()

	// A job that calls runtime.Goexit ends the caller's goroutine too, and
	// another goroutine takes the place of the pool's.
	ended := make(chan bool)
	go func() {
		returned := false
		defer func() { ended <- returned }()
		_ = r.Do(func() error { runtime.Goexit(); return nil })
		returned = true
	}()
	if <-ended {
		t.Error("do returned after the job's Goexit")
	}

	// At most size jobs run at once; the others wait their turn.
	var mu sync.Mutex
	running, most := 0, 0
	var callers sync.WaitGroup
	for range 4 * size {
		callers.Go(func() {
			_ = r.Do(func() error {
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
				return nil
			})
		})
	}
	callers.Wait()
	if most != size {
		t.Errorf("%d jobs ran at once, want %d (the pool is whole again after the Goexit)", most, size)
	}

	r.Close(0)
	r.Close(0)
	ran := false
	_ = r.Do(func() error { ran = true; return nil })
	if !ran {
		t.Error("a job after close did not run")
	}
}

// TestPool_goroutinesStay checks that the pool's goroutines are all
// it ever starts, and that close ends them.
func TestPool_goroutinesStay(t *testing.T) {
	before := runtime.NumGoroutine()
	r := New(4)
	started := runtime.NumGoroutine()
	for range 100 {
		_ = r.Do(func() error { return nil })
	}
	if n := runtime.NumGoroutine(); n > started {
		t.Errorf("goroutines %d after 100 jobs, %d after start", n, started)
	}
	r.Close(0)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("goroutines %d after close, %d before start", n, before)
	}
}

func poisonedJob() error { panic("poison") }

// A job given a time limit that overruns it is abandoned: doWithin returns
// late at once, the pool is whole again for the next job, the job runs
// on to its end and only then runs its after func, and close waits for it
// only as long as it is told to.
func TestPool_doWithin(t *testing.T) {
	t.Parallel()
	r := New(1)
	release := make(chan struct{})
	afterRan := make(chan struct{})
	err, late := r.DoWithin(func() error { <-release; return nil }, 20*time.Millisecond, func() { close(afterRan) })
	if err != nil || !late {
		t.Fatalf("doWithin = %v, late %v; want late", err, late)
	}
	select {
	case <-afterRan:
		t.Fatal("after ran before the abandoned job returned")
	default:
	}
	errBoom := errors.New("boom")
	if err, late := r.DoWithin(func() error { return errBoom }, time.Minute, nil); !errors.Is(err, errBoom) || late {
		t.Fatalf("next job = %v, late %v; want its error in time", err, late)
	}
	if r.Close(20 * time.Millisecond) {
		t.Error("close reported every goroutine ended while the abandoned job runs")
	}
	close(release)
	<-afterRan
	if !r.Close(10 * time.Second) {
		t.Error("close timed out once the abandoned job returned")
	}
}
