package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// syncTimeout bounds NewLive's first read of the buckets.
const syncTimeout = 30 * time.Second

// Snapshot is one compiled state of the registry: never modified once
// built, so that a message is judged against one whole registry.
type Snapshot struct {
	// Registry is the compiled registry.
	Registry *schemas.Registry
	// Revisions holds each agent's blueprint revision.
	Revisions map[string]uint64
	// SchemasRevision and AgentsRevision are the last bucket revisions
	// the snapshot includes.
	SchemasRevision, AgentsRevision uint64
	// BuiltAt is when it was swapped in.
	BuiltAt time.Time
	// LeftOut lists the problems of the stored entries left out because
	// they did not compile with the rest (see Live); normally empty.
	LeftOut []string

	docs docs // what it was compiled from, for BlueprintAt
}

// Live is a gateway's view of the registry: it watches both buckets and,
// on every change, compiles the whole registry anew and swaps it in with
// one atomic store. Readers load the current Snapshot once per message;
// they never see a half-updated registry. Writes are checked before they
// are stored, but two writers to different keys can race past each
// other's checks (a blueprint naming a version being deleted): an entry
// that does not compile with the rest is then left out of the snapshot,
// logged, and listed in Snapshot.LeftOut, and the rest is served.
//
// Live implements handlers.Registry and the pipeline's blueprint-revision
// lookups. Safe for concurrent use.
type Live struct {
	logger *slog.Logger
	cur    atomic.Pointer[Snapshot]

	stop      context.CancelFunc
	schemasW  jetstream.KeyWatcher
	agentsW   jetstream.KeyWatcher
	done      chan struct{}
	closeOnce sync.Once
	running   atomic.Bool

	// State of the watch loop: the latest entry of each key.
	subs   map[string]*Subject
	agents map[string]*Agent

	// hist holds the blueprint documents by agent and revision (at most
	// topology.RegistryHistory each), and compiled the ones compiled on
	// demand by BlueprintAt.
	histMu   sync.RWMutex
	hist     map[string]map[uint64][]byte
	compiled map[string]map[uint64]*schemas.Blueprint

	// changed is closed and replaced on every swap (see Changed).
	changedMu sync.Mutex
	changed   chan struct{}
	failures  atomic.Int64
}

// NewLive reads both buckets of store, compiles the registry, and returns
// a Live serving it. Run follows the buckets from there. It fails when the
// buckets cannot be read or what they hold does not compile.
//
// seed, when not nil, is a registry already compiled (the configuration
// folder's, just seeded): when the buckets hold exactly its documents, it
// is served as is rather than compiled again.
func NewLive(ctx context.Context, store *Store, logger *slog.Logger, seed *schemas.Registry) (*Live, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	wctx, stop := context.WithCancel(context.Background())
	l := &Live{
		logger: logger, stop: stop, done: make(chan struct{}),
		subs: make(map[string]*Subject), agents: make(map[string]*Agent),
		hist: make(map[string]map[uint64][]byte), compiled: make(map[string]map[uint64]*schemas.Blueprint),
		changed: make(chan struct{}),
	}
	var err error
	if l.schemasW, err = store.schemas.WatchAll(wctx); err != nil {
		stop()
		return nil, fmt.Errorf("registry: watching %s: %w", topology.SchemasBucket, err)
	}
	if l.agentsW, err = store.agents.WatchAll(wctx, jetstream.IncludeHistory()); err != nil {
		stop()
		return nil, fmt.Errorf("registry: watching %s: %w", topology.BlueprintsBucket, err)
	}
	sctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	if err := l.initial(sctx); err != nil {
		_ = l.Close()
		return nil, err
	}
	snap, err := l.buildFrom(seed)
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("registry: the stored registry does not compile: %w", err)
	}
	l.cur.Store(snap)
	return l, nil
}

// initial applies every entry up to the watchers' end-of-history markers.
func (l *Live) initial(ctx context.Context) error {
	for _, w := range []jetstream.KeyWatcher{l.schemasW, l.agentsW} {
		for synced := false; !synced; {
			select {
			case <-ctx.Done():
				return fmt.Errorf("registry: reading the buckets: %w", ctx.Err())
			case e, ok := <-w.Updates():
				if !ok {
					return errors.New("registry: watcher closed while reading the buckets")
				}
				if e == nil {
					synced = true
					continue
				}
				l.apply(e)
			}
		}
	}
	return nil
}

// Run follows the buckets, swapping in a new snapshot after each burst of
// changes, until ctx is done or Close is called.
func (l *Live) Run(ctx context.Context) error {
	if !l.running.CompareAndSwap(false, true) {
		return errors.New("registry: Live.Run called twice")
	}
	defer close(l.done)
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-l.schemasW.Updates():
			if !ok {
				return nil
			}
			l.apply(e)
		case e, ok := <-l.agentsW.Updates():
			if !ok {
				return nil
			}
			l.apply(e)
		}
		// Take in whatever else already arrived, then rebuild once.
		if !l.drain() {
			return nil
		}
		snap, err := l.build()
		if err != nil {
			l.failures.Add(1)
			l.logger.Error("registry change does not compile; the previous registry stays in force", "error", err)
			continue
		}
		l.swap(snap)
	}
}

// drain applies the entries already waiting (bounded), and reports false
// when a watcher closed.
func (l *Live) drain() bool {
	for range 1024 {
		select {
		case e, ok := <-l.schemasW.Updates():
			if !ok {
				return false
			}
			l.apply(e)
		case e, ok := <-l.agentsW.Updates():
			if !ok {
				return false
			}
			l.apply(e)
		default:
			return true
		}
	}
	return true
}

func (l *Live) apply(e jetstream.KeyValueEntry) {
	if e == nil {
		return
	}
	switch e.Bucket() {
	case topology.SchemasBucket:
		if e.Operation() != jetstream.KeyValuePut {
			delete(l.subs, e.Key())
			return
		}
		sub, err := decodeSubject(e)
		if err != nil {
			l.logger.Error("skipping an unreadable schema entry", "key", e.Key(), "error", err)
			return
		}
		l.subs[e.Key()] = sub
	case topology.BlueprintsBucket:
		if e.Operation() != jetstream.KeyValuePut {
			delete(l.agents, e.Key())
			return
		}
		a, err := decodeAgent(e)
		if err != nil {
			l.logger.Error("skipping an unreadable blueprint entry", "key", e.Key(), "error", err)
			return
		}
		l.agents[e.Key()] = a
		l.remember(a)
	}
}

// remember keeps a blueprint revision's document for BlueprintAt.
func (l *Live) remember(a *Agent) {
	l.histMu.Lock()
	defer l.histMu.Unlock()
	h := l.hist[a.Name]
	if h == nil {
		h = make(map[uint64][]byte)
		l.hist[a.Name] = h
	}
	h[a.Revision] = a.Blueprint
	for len(h) > topology.RegistryHistory {
		oldest := slices.Min(slices.Collect(maps.Keys(h)))
		delete(h, oldest)
		delete(l.compiled[a.Name], oldest)
	}
}

// build compiles the watch loop's state.
func (l *Live) build() (*Snapshot, error) { return l.buildFrom(nil) }

// buildFrom is build, serving seed instead of compiling when it was
// compiled from the very documents of the state.
func (l *Live) buildFrom(seed *schemas.Registry) (*Snapshot, error) {
	d := newDocs()
	snap := &Snapshot{Revisions: make(map[string]uint64, len(l.agents)), BuiltAt: time.Now()}
	for _, sub := range l.subs {
		snap.SchemasRevision = max(snap.SchemasRevision, sub.Revision)
		for _, v := range sub.Live() {
			d.schemas[v.ID] = v.Schema
		}
	}
	for _, a := range l.agents {
		snap.AgentsRevision = max(snap.AgentsRevision, a.Revision)
		d.agents[a.Name] = a.Blueprint
		snap.Revisions[a.Name] = a.Revision
	}
	if seed != nil && sameDocs(d, seed) {
		snap.Registry, snap.docs = seed, d
		return snap, nil
	}
	reg, left, err := d.compileDegraded()
	if err != nil {
		return nil, err
	}
	if len(left) > 0 {
		l.failures.Add(1)
		l.logger.Error("registry entries left out: they do not compile with the rest", "problems", left)
	}
	snap.Registry, snap.docs, snap.LeftOut = reg, d, left
	return snap, nil
}

// sameDocs reports whether reg was compiled from exactly the documents of
// d (compared compacted).
func sameDocs(d docs, reg *schemas.Registry) bool {
	n := 0
	for _, sc := range reg.Schemas() {
		if strings.HasPrefix(sc.ID, schemas.InlinePrefix) {
			continue
		}
		n++
		doc, err := compact(sc.Raw)
		if err != nil || !bytes.Equal(doc, d.schemas[sc.ID]) {
			return false
		}
	}
	if n != len(d.schemas) || len(reg.Blueprints()) != len(d.agents) {
		return false
	}
	for _, bp := range reg.Blueprints() {
		raw, err := json.Marshal(bp)
		if err != nil {
			return false
		}
		doc, err := compact(raw)
		if err != nil || !bytes.Equal(doc, d.agents[bp.Name]) {
			return false
		}
	}
	return true
}

func (l *Live) swap(snap *Snapshot) {
	l.cur.Store(snap)
	l.changedMu.Lock()
	close(l.changed)
	l.changed = make(chan struct{})
	l.changedMu.Unlock()
	l.logger.Info("registry updated", "schemas", len(snap.docs.schemas), "agents", len(snap.docs.agents),
		"schemas_revision", snap.SchemasRevision, "agents_revision", snap.AgentsRevision)
}

// Current returns the snapshot in force.
func (l *Live) Current() *Snapshot { return l.cur.Load() }

// Changed returns a channel closed at the next swap.
func (l *Live) Changed() <-chan struct{} {
	l.changedMu.Lock()
	defer l.changedMu.Unlock()
	return l.changed
}

// Await waits until the snapshot in force satisfies cond, or ctx is done
// (then it returns ctx's error). The API uses it so that a write's answer
// comes after the writing gateway serves the change.
func (l *Live) Await(ctx context.Context, cond func(*Snapshot) bool) error {
	for {
		changed := l.Changed()
		if cond(l.Current()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// Failures counts the builds that did not compile whole.
func (l *Live) Failures() int64 { return l.failures.Load() }

// Blueprint returns the agent's current blueprint.
func (l *Live) Blueprint(name string) (*schemas.Blueprint, bool) {
	return l.Current().Registry.Blueprint(name)
}

// Schema returns the schema with the given $id.
func (l *Live) Schema(id string) (*schemas.Schema, bool) { return l.Current().Registry.Schema(id) }

// Blueprints returns every current blueprint, sorted by name.
func (l *Live) Blueprints() []*schemas.Blueprint { return l.Current().Registry.Blueprints() }

// Schemas returns every current schema, sorted by $id.
func (l *Live) Schemas() []*schemas.Schema { return l.Current().Registry.Schemas() }

// BlueprintRevision returns the agent's current blueprint and its
// revision, from one snapshot.
func (l *Live) BlueprintRevision(name string) (*schemas.Blueprint, uint64, bool) {
	snap := l.Current()
	bp, ok := snap.Registry.Blueprint(name)
	return bp, snap.Revisions[name], ok
}

// BlueprintAt returns the agent's blueprint as it was at revision rev,
// compiled against the schemas in force (a version is immutable, so a
// schema it names is the same document unless it was deleted since). It
// reports false when the revision is gone from the bucket's history or no
// longer compiles.
func (l *Live) BlueprintAt(name string, rev uint64) (*schemas.Blueprint, bool) {
	snap := l.Current()
	if snap.Revisions[name] == rev {
		return snap.Registry.Blueprint(name)
	}
	l.histMu.RLock()
	bp, ok := l.compiled[name][rev]
	doc, known := l.hist[name][rev]
	l.histMu.RUnlock()
	if ok {
		return bp, bp != nil
	}
	if !known {
		return nil, false
	}
	d := snap.docs.clone()
	d.agents = map[string][]byte{name: doc}
	reg, err := d.compile()
	if err == nil {
		bp, _ = reg.Blueprint(name)
	} else {
		l.logger.Warn("an earlier blueprint revision no longer compiles", "agent", name, "revision", rev, "error", err)
	}
	l.histMu.Lock()
	if l.compiled[name] == nil {
		l.compiled[name] = make(map[uint64]*schemas.Blueprint)
	}
	l.compiled[name][rev] = bp
	l.histMu.Unlock()
	return bp, bp != nil
}

// Close stops the watchers and waits (bounded) for Run to return. Safe to
// call twice.
func (l *Live) Close() error {
	l.closeOnce.Do(func() {
		l.stop()
		if l.running.Load() {
			select {
			case <-l.done:
			case <-time.After(5 * time.Second):
			}
		}
	})
	return nil
}
