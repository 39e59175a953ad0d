package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/topology"
)

// Origin says where a stored entry came from.
type Origin string

const (
	// OriginAPI marks an entry written through the API or the CLI.
	OriginAPI Origin = "api"
	// OriginConfig marks an entry seeded from the --config folder; the
	// folder may replace it at the next start, as it always could.
	OriginConfig Origin = "config"
)

// Subject is a schema name as stored: one entry of the schemas bucket,
// holding every version, so that one compare-and-set write decides between
// concurrent registrations of the same name.
type Subject struct {
	Name string `json:"name"`
	// Compatibility is the name's level; "" means DefaultLevel.
	Compatibility Level     `json:"compatibility,omitempty"`
	Versions      []Version `json:"versions"` // in registration order
	// Revision is the entry's revision in the bucket (0: not stored yet).
	Revision uint64 `json:"-"`
}

// Version is one registered version of a schema name.
type Version struct {
	Version      string          `json:"version"`
	ID           string          `json:"id"`
	Schema       json.RawMessage `json:"schema"`
	Origin       Origin          `json:"origin"`
	RegisteredAt time.Time       `json:"registered_at"`
	// Deleted marks a soft-deleted version: kept, readable by its $id in
	// the bucket's history, but no longer served or compiled.
	Deleted bool `json:"deleted,omitempty"`
}

// Level is the subject's compatibility level, DefaultLevel when unset.
func (s *Subject) Level() Level {
	if s.Compatibility == "" {
		return DefaultLevel
	}
	return s.Compatibility
}

// Find returns the version, deleted or not, or nil.
func (s *Subject) Find(version string) *Version {
	for i := range s.Versions {
		if s.Versions[i].Version == version {
			return &s.Versions[i]
		}
	}
	return nil
}

// Live returns the versions not deleted, in semantic-version order.
func (s *Subject) Live() []Version {
	var out []Version
	for _, v := range s.Versions {
		if !v.Deleted {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b Version) int { return CompareVersions(a.Version, b.Version) })
	return out
}

// Latest returns the highest version not deleted, or nil.
func (s *Subject) Latest() *Version {
	live := s.Live()
	if len(live) == 0 {
		return nil
	}
	return &live[len(live)-1]
}

// Agent is a blueprint as stored: one entry of the blueprints bucket, keyed
// by agent name.
type Agent struct {
	Name      string          `json:"name"`
	Blueprint json.RawMessage `json:"blueprint"`
	Origin    Origin          `json:"origin"`
	UpdatedAt time.Time       `json:"updated_at"`
	// Revision is the entry's revision in the bucket: what a run state
	// records as its blueprint revision.
	Revision uint64 `json:"revision"`
}

// Store reads and writes the two registry buckets. Every write is a
// compare-and-set on the revision read, so concurrent writers never
// overwrite each other: the loser gets ErrConflict.
type Store struct {
	schemas jetstream.KeyValue
	agents  jetstream.KeyValue
}

// NewStore returns a Store on the schemas and blueprints buckets.
func NewStore(schemasKV, agentsKV jetstream.KeyValue) *Store {
	return &Store{schemas: schemasKV, agents: agentsKV}
}

// OpenStore binds to the buckets topology.Ensure creates.
func OpenStore(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	s, err := js.KeyValue(ctx, topology.SchemasBucket)
	if err != nil {
		return nil, fmt.Errorf("registry: bucket %s: %w", topology.SchemasBucket, err)
	}
	a, err := js.KeyValue(ctx, topology.BlueprintsBucket)
	if err != nil {
		return nil, fmt.Errorf("registry: bucket %s: %w", topology.BlueprintsBucket, err)
	}
	return NewStore(s, a), nil
}

// Subject returns the named subject, or ErrNotFound.
func (s *Store) Subject(ctx context.Context, name string) (*Subject, error) {
	e, err := s.schemas.Get(ctx, subjectKey(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: schema %q", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: reading schema %q: %w", name, err)
	}
	return decodeSubject(e)
}

// Subjects returns every subject, sorted by name.
func (s *Store) Subjects(ctx context.Context) ([]*Subject, error) {
	entries, err := readAll(ctx, s.schemas)
	if err != nil {
		return nil, err
	}
	out := make([]*Subject, 0, len(entries))
	for _, e := range entries {
		sub, err := decodeSubject(e)
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	slices.SortFunc(out, func(a, b *Subject) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// PutSubject writes sub if its entry is still at sub.Revision (0: if it
// does not exist yet), and sets sub.Revision to the new one. ErrConflict
// when another writer came first.
func (s *Store) PutSubject(ctx context.Context, sub *Subject) error {
	b, err := json.Marshal(sub)
	if err != nil {
		return fmt.Errorf("registry: encoding schema %q: %w", sub.Name, err)
	}
	rev, err := casPut(ctx, s.schemas, subjectKey(sub.Name), b, sub.Revision)
	if err != nil {
		return fmt.Errorf("registry: writing schema %q: %w", sub.Name, err)
	}
	sub.Revision = rev
	return nil
}

// Agent returns the agent's stored blueprint, or ErrNotFound.
func (s *Store) Agent(ctx context.Context, name string) (*Agent, error) {
	e, err := s.agents.Get(ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return nil, fmt.Errorf("%w: agent %q", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: reading agent %q: %w", name, err)
	}
	return decodeAgent(e)
}

// AgentAt returns the agent's blueprint as written at revision rev (the
// bucket keeps topology.RegistryHistory revisions per agent).
func (s *Store) AgentAt(ctx context.Context, name string, rev uint64) (*Agent, error) {
	e, err := s.agents.GetRevision(ctx, name, rev)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: agent %q at revision %d", ErrNotFound, name, rev)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: reading agent %q: %w", name, err)
	}
	return decodeAgent(e)
}

// Agents returns every agent, sorted by name.
func (s *Store) Agents(ctx context.Context) ([]*Agent, error) {
	entries, err := readAll(ctx, s.agents)
	if err != nil {
		return nil, err
	}
	out := make([]*Agent, 0, len(entries))
	for _, e := range entries {
		a, err := decodeAgent(e)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *Agent) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// PutAgent writes a if its entry is still at a.Revision (0: if it does not
// exist yet) and sets a.Revision to the new one. ErrConflict otherwise.
func (s *Store) PutAgent(ctx context.Context, a *Agent) error {
	b, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("registry: encoding agent %q: %w", a.Name, err)
	}
	rev, err := casPut(ctx, s.agents, a.Name, b, a.Revision)
	if err != nil {
		return fmt.Errorf("registry: writing agent %q: %w", a.Name, err)
	}
	a.Revision = rev
	return nil
}

// DeleteAgent deletes the agent if its entry is still at rev. The
// bucket's history keeps what it was.
func (s *Store) DeleteAgent(ctx context.Context, name string, rev uint64) error {
	err := s.agents.Delete(ctx, name, jetstream.LastRevision(rev))
	if isConflict(err) {
		return fmt.Errorf("registry: deleting agent %q: %w", name, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("registry: deleting agent %q: %w", name, err)
	}
	return nil
}

// agentDeleted reports whether the agent's entry exists and its latest
// operation is a delete.
func (s *Store) agentDeleted(ctx context.Context, name string) (bool, error) {
	h, err := s.agents.History(ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("registry: history of agent %q: %w", name, err)
	}
	return len(h) > 0 && h[len(h)-1].Operation() != jetstream.KeyValuePut, nil
}

func casPut(ctx context.Context, kv jetstream.KeyValue, key string, b []byte, revision uint64) (uint64, error) {
	var (
		rev uint64
		err error
	)
	if revision == 0 {
		rev, err = kv.Create(ctx, key, b)
	} else {
		rev, err = kv.Update(ctx, key, b, revision)
	}
	if isConflict(err) {
		return 0, ErrConflict
	}
	if errors.Is(err, nats.ErrMaxPayload) {
		return 0, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(b))
	}
	return rev, err
}

// isConflict: replicated buckets report a revision mismatch as "key exists".
func isConflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) ||
		errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// readAll returns the latest entry of every key, deleted ones left out.
func readAll(ctx context.Context, kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("registry: listing %s: %w", kv.Bucket(), err)
	}
	defer func() { _ = w.Stop() }()
	var out []jetstream.KeyValueEntry
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("registry: listing %s: %w", kv.Bucket(), ctx.Err())
		case e, ok := <-w.Updates():
			if !ok || e == nil {
				return out, nil
			}
			out = append(out, e)
		}
	}
}

func decodeSubject(e jetstream.KeyValueEntry) (*Subject, error) {
	var sub Subject
	if err := json.Unmarshal(e.Value(), &sub); err != nil {
		return nil, fmt.Errorf("registry: decoding schema entry %q: %w", e.Key(), err)
	}
	sub.Revision = e.Revision()
	return &sub, nil
}

func decodeAgent(e jetstream.KeyValueEntry) (*Agent, error) {
	var a Agent
	if err := json.Unmarshal(e.Value(), &a); err != nil {
		return nil, fmt.Errorf("registry: decoding agent entry %q: %w", e.Key(), err)
	}
	a.Revision = e.Revision()
	return &a, nil
}
