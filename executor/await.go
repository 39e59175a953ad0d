package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
)

// Waiter waits for the outcome of one run and attempt. It listens on two
// sources at once, because neither is enough alone:
//
//   - the run's entry in the run-state bucket, which holds the run's latest
//     outcome however long ago it was published (and answers a repeated
//     Submit of an attempt that already has one, for which the gateway
//     publishes nothing new);
//   - the agent's outcome subjects, for the dead letters that leave the run
//     state as it was (invalid_envelope, invalid_encoding,
//     run_already_completed, attempts_exhausted).
//
// The subjects are only heard from the moment Watch returns, so create the
// Waiter before submitting (Run does). A Waiter holds NATS subscriptions and
// a key-value watcher until Close.
type Waiter struct {
	c       *Client
	agent   string
	runID   string
	attempt int

	results chan waitResult
	subs    []*nats.Subscription
	watcher jetstream.KeyWatcher
	stop    chan struct{}
	done    chan struct{}

	mu        sync.Mutex
	got       *waitResult
	closeOnce sync.Once
}

type waitResult struct {
	o   *Outcome
	err error
}

// Watch starts waiting for the outcome of the run's attempt; attempt 0
// means the attempt the gateway will take for an output without an Attempt
// header (the run's next one, or its last one if it is finished; Attempt
// says which). It returns ErrInvalidArgument for a bad agent, run id or
// attempt, and an error if the run-state bucket cannot be read (the gateway
// creates it). Close the Waiter when done.
func (c *Client) Watch(ctx context.Context, agent, runID string, attempt int) (_ *Waiter, err error) {
	if err := checkAgent(agent); err != nil {
		return nil, err
	}
	if err := checkRun(runID); err != nil {
		return nil, err
	}
	if attempt < 0 {
		return nil, fmt.Errorf("%w: attempt %d, want 0 (the run's next) or more", ErrInvalidArgument, attempt)
	}
	kv, err := c.runsBucket(ctx)
	if err != nil {
		return nil, err
	}
	w := &Waiter{
		c: c, agent: agent, runID: runID, attempt: attempt,
		results: make(chan waitResult, 4), stop: make(chan struct{}), done: make(chan struct{}),
	}
	defer func() {
		if err != nil {
			close(w.done) // the forwarding goroutine never started
			_ = w.Close()
		}
	}()
	// The watcher lives as long as the Waiter, not as long as ctx.
	if w.watcher, err = kv.Watch(context.WithoutCancel(ctx), contract.RunKey(runID), jetstream.IgnoreDeletes()); err != nil {
		return nil, fmt.Errorf("executor: watching run %q: %w", runID, err)
	}
	initial, err := w.initialState(ctx)
	if err != nil {
		return nil, err
	}
	if w.attempt == 0 {
		w.attempt = contract.NextAttempt(initial)
	}
	if initial != nil {
		if initial.Attempts > w.attempt {
			w.offer(nil, fmt.Errorf("%w: run %q is at attempt %d, attempt %d's outcome is no longer its latest",
				ErrSuperseded, runID, initial.Attempts, w.attempt))
		} else {
			w.offerState(initial)
		}
	}
	for _, subj := range []string{
		subjects.Valid(agent), subjects.Retry(agent), subjects.Refused(agent), subjects.DLQ(agent), subjects.DLQ(subjects.UnknownAgent),
	} {
		sub, err := c.cfg.Conn.Subscribe(subj, w.onMsg)
		if err != nil {
			return nil, fmt.Errorf("executor: subscribing to %s: %w", subj, err)
		}
		w.subs = append(w.subs, sub)
	}
	// Make sure the server knows the subscriptions before the caller
	// submits, possibly on another connection.
	fctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	if err := c.cfg.Conn.FlushWithContext(fctx); err != nil {
		return nil, fmt.Errorf("executor: subscribing to the outcomes of %q: %w", agent, err)
	}
	go w.forward()
	return w, nil
}

// Await returns the outcome of the run's attempt (see Watch for attempt 0),
// bounded by ctx and Config.AwaitTimeout; on timeout the error wraps
// ctx's error (errors.Is(err, context.DeadlineExceeded)). The outcome is
// returned as is, a dead letter or refusal included: Outcome.Err turns it
// into a typed error.
//
// Outcomes recorded in the run state (valid, retry, refused and the dead
// letters that fail the run) are found even when published before Await
// was called, as long as they are the run's latest (ErrSuperseded when the
// run has moved past the attempt). The dead letters that leave the run
// state alone are heard only from the moment Await subscribes: to be sure
// to see them, call Watch before Submit and Wait after, as Run does.
func (c *Client) Await(ctx context.Context, agent, runID string, attempt int) (*Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.AwaitTimeout)
	defer cancel()
	w, err := c.Watch(ctx, agent, runID, attempt)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Wait(ctx)
}

// Attempt is the attempt the Waiter waits for.
func (w *Waiter) Attempt() int { return w.attempt }

// Wait returns the outcome, bounded by ctx and Config.AwaitTimeout (the
// error then wraps ctx's error). Once it has returned an outcome, it returns
// the same again.
func (w *Waiter) Wait(ctx context.Context) (*Outcome, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.got != nil {
		return w.got.o, w.got.err
	}
	ctx, cancel := context.WithTimeout(ctx, w.c.cfg.AwaitTimeout)
	defer cancel()
	select {
	case r := <-w.results:
		w.got = &r
		return r.o, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("executor: awaiting the outcome of run %q attempt %d: %w", w.runID, w.attempt, ctx.Err())
	}
}

// Close stops listening. Safe to call twice; it does not block on I/O.
func (w *Waiter) Close() error {
	w.closeOnce.Do(func() {
		for _, s := range w.subs {
			_ = s.Unsubscribe()
		}
		if w.watcher != nil {
			_ = w.watcher.Stop()
		}
		close(w.stop)
		<-w.done
	})
	return nil
}

// initialState reads the run's state as the watcher first delivers it (nil
// for a run never seen), bounded by ctx and Config.RequestTimeout.
func (w *Waiter) initialState(ctx context.Context) (*contract.RunState, error) {
	ctx, cancel := context.WithTimeout(ctx, w.c.cfg.RequestTimeout)
	defer cancel()
	var st *contract.RunState
	for {
		select {
		case e, ok := <-w.watcher.Updates():
			if !ok {
				return nil, fmt.Errorf("executor: watching run %q: watcher closed", w.runID)
			}
			if e == nil { // the end of the initial values
				return st, nil
			}
			if s := w.decodeState(e); s != nil {
				st = s
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("executor: reading the state of run %q: %w", w.runID, ctx.Err())
		}
	}
}

// forward offers every later state of the run until Close.
func (w *Waiter) forward() {
	defer close(w.done)
	updates := w.watcher.Updates()
	for {
		select {
		case <-w.stop:
			return
		case e, ok := <-updates:
			if !ok {
				return
			}
			if st := w.decodeState(e); st != nil {
				w.offerState(st)
			}
		}
	}
}

func (w *Waiter) decodeState(e jetstream.KeyValueEntry) *contract.RunState {
	if e == nil || e.Operation() != jetstream.KeyValuePut {
		return nil
	}
	var st contract.RunState
	if err := json.Unmarshal(e.Value(), &st); err != nil || st.RunID != w.runID {
		w.c.logger.Warn("unreadable run state", "run_id", w.runID, "revision", e.Revision(), "err", err)
		return nil
	}
	return &st
}

// offerState offers the state's outcome if it is the attempt's.
func (w *Waiter) offerState(st *contract.RunState) {
	if st.Attempts != w.attempt || len(st.Outcome) == 0 {
		return
	}
	o, err := decodeOutcome(st.Outcome)
	if err != nil {
		w.c.logger.Warn("unreadable outcome in run state", "run_id", w.runID, "err", err)
		return
	}
	if o.Attempt == w.attempt {
		w.offer(o, nil)
	}
}

// onMsg offers an outcome message of the run's attempt.
func (w *Waiter) onMsg(m *nats.Msg) {
	if m.Header.Get(contract.HeaderRunID) != w.runID || m.Header.Get(contract.HeaderAttempt) != itoa(w.attempt) {
		return
	}
	o, err := decodeOutcome(m.Data)
	if err != nil {
		w.c.logger.Warn("unreadable outcome message", "subject", m.Subject, "run_id", w.runID, "err", err)
		return
	}
	w.offer(o, nil)
}

// offer hands a result to Wait; the first one is what counts, so a full
// buffer drops the newcomer.
func (w *Waiter) offer(o *Outcome, err error) {
	select {
	case w.results <- waitResult{o: o, err: err}:
	default:
	}
}
