package gateway

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/agentgate/agentgate/agentproto"
)

// twins are the gated twins of the blueprints that name an upstream agent
// (contract section 10).
type twins struct {
	list []*agentproto.Twin
	stop context.CancelFunc
	wg   sync.WaitGroup
	errs []error
	mu   sync.Mutex
	log  *slog.Logger
}

// newTwins builds a twin per blueprint with an upstream; they prompt and
// record through the processor of raw outputs.
func (g *Gateway) newTwins() (*twins, error) {
	ts := &twins{log: g.cfg.Logger}
	claims := &agentproto.Claims{}
	for _, bp := range g.reg.Blueprints() {
		if bp.Upstream == nil {
			continue
		}
		t, err := agentproto.New(agentproto.Config{
			Conn: g.nc, Blueprint: bp, Judge: g.proc, Idle: g.cfg.GateIdle, Heartbeat: g.cfg.GateHeartbeat, KeepAlive: g.cfg.GateKeepAlive, Claims: claims, Blueprints: g.reg,
			DiscoveryWait: g.cfg.GateDiscoveryWait, DiscoveryRetry: g.cfg.GateDiscoveryRetry,
			MaxPayload: g.cfg.MaxPayload, Logger: g.cfg.Logger,
		})
		if err != nil {
			return nil, err
		}
		ts.list = append(ts.list, t)
	}
	return ts, nil
}

// start runs every twin until ctx is done or close is called.
func (ts *twins) start(ctx context.Context) {
	ctx, ts.stop = context.WithCancel(ctx)
	for _, t := range ts.list {
		ts.wg.Add(1)
		go func() {
			defer ts.wg.Done()
			if err := t.Run(ctx); err != nil {
				ts.log.Error("gated twin stopped", "error", err)
				ts.mu.Lock()
				ts.errs = append(ts.errs, err)
				ts.mu.Unlock()
			}
		}()
	}
}

// close stops every twin and waits for them (each bounded); before the
// router closes, for they publish through its handler.
func (ts *twins) close() error {
	if ts == nil || ts.stop == nil {
		return nil
	}
	ts.stop()
	ts.wg.Wait()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return errors.Join(ts.errs...)
}

// Twins are the gated twins, for tests and the CLI.
func (g *Gateway) Twins() []*agentproto.Twin {
	if g.twins == nil {
		return nil
	}
	return g.twins.list
}
