package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentgate/agentgate/schemas"
)

// Service applies the registry's rules on top of a Store: every write is
// checked (compiled with the other documents exactly as at start-up, and
// judged under the name's compatibility level) before it is stored, and
// stored with a compare-and-set, so that of two concurrent writers one wins
// and the other gets ErrConflict. It holds no state of its own: any number
// of gateways may run one on the same buckets.
type Service struct {
	store  *Store
	now    func() time.Time
	logger *slog.Logger
}

// NewService returns a Service on store. A nil logger discards.
func NewService(store *Store, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, now: time.Now, logger: logger}
}

// Store is the service's store, for reads.
func (s *Service) Store() *Store { return s.store }

// Registration is the result of Register.
type Registration struct {
	Version *Version
	// Created is false when the very same document was registered before
	// (registering it again is a no-op).
	Created bool
}

// Register registers a schema document as the version its $id names, under
// origin. Errors: ErrInvalid (an *InvalidError with the problems) for a
// document that does not compile with the registry, ErrImmutable for a
// version registered with another document, ErrVersionOrder,
// ErrIncompatible (an *IncompatibleError with the breaking changes), and
// ErrConflict when a concurrent registration of the same name won.
func (s *Service) Register(ctx context.Context, doc []byte, origin Origin) (*Registration, error) {
	return s.register(ctx, doc, origin, false)
}

// CheckCompatibility is Register without the write: nil when the document
// would be registered (or is already, identically).
func (s *Service) CheckCompatibility(ctx context.Context, doc []byte) error {
	_, err := s.register(ctx, doc, OriginAPI, true)
	return err
}

func (s *Service) register(ctx context.Context, doc []byte, origin Origin, dryRun bool) (*Registration, error) {
	doc, id, name, version, err := parseSchema(doc)
	if err != nil {
		return nil, err
	}
	sub, err := s.store.Subject(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		sub = &Subject{Name: name}
	case err != nil:
		return nil, err
	}
	if v := sub.Find(version); v != nil {
		switch {
		case v.Deleted:
			return nil, fmt.Errorf("%w: %s was deleted; register a new version", ErrImmutable, id)
		case !bytes.Equal(v.Schema, doc):
			return nil, fmt.Errorf("%w: %s is registered with another document; register a new version", ErrImmutable, id)
		}
		return &Registration{Version: v}, nil
	}
	var priors []Prior
	for _, v := range sub.Live() {
		priors = append(priors, Prior{Version: v.Version, Doc: v.Schema})
	}
	if err := Check(sub.Level(), name, version, doc, priors); err != nil {
		return nil, err
	}
	all, _, err := s.current(ctx, false)
	if err != nil {
		return nil, err
	}
	all.schemas[id] = doc
	if _, err := all.compile(); err != nil {
		return nil, err
	}
	v := Version{Version: version, ID: id, Schema: doc, Origin: origin, RegisteredAt: s.now().UTC()}
	if dryRun {
		return &Registration{Version: &v, Created: true}, nil
	}
	sub.Versions = append(sub.Versions, v)
	if err := s.store.PutSubject(ctx, sub); err != nil {
		return nil, err
	}
	s.logger.Info("schema registered", "id", id, "origin", origin, "revision", sub.Revision)
	return &Registration{Version: &v, Created: true}, nil
}

// SetLevel sets a name's compatibility level; the name need not have a
// version yet. ErrBadLevel, ErrConflict.
func (s *Service) SetLevel(ctx context.Context, name string, level Level) error {
	if _, err := ParseLevel(string(level)); err != nil {
		return err
	}
	sub, err := s.store.Subject(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		sub = &Subject{Name: name}
	case err != nil:
		return err
	}
	sub.Compatibility = level
	return s.store.PutSubject(ctx, sub)
}

// DeleteVersion soft-deletes a version: it stays in the entry (and the
// bucket's history) marked deleted, is no longer served, and its number is
// never reused. ErrNotFound; ErrInUse, with what still names it, when a
// blueprint or another schema refers to it; ErrConflict.
func (s *Service) DeleteVersion(ctx context.Context, name, version string) error {
	sub, err := s.store.Subject(ctx, name)
	if err != nil {
		return err
	}
	v := sub.Find(version)
	if v == nil || v.Deleted {
		return fmt.Errorf("%w: schema %s version %s", ErrNotFound, name, version)
	}
	all, _, err := s.current(ctx, true)
	if err != nil {
		return err
	}
	reg, err := all.compile()
	if err != nil {
		return fmt.Errorf("registry: the stored registry does not compile: %w", err)
	}
	var users []string
	for _, bp := range reg.Blueprints() {
		if bp.OutputSchema != nil && bp.OutputSchema.ID == v.ID {
			users = append(users, "agent "+bp.Name+" (output_schema)")
		}
		for _, tool := range bp.ToolNames() {
			if bp.Tools[tool].ID == v.ID {
				users = append(users, "agent "+bp.Name+" (tools."+tool+")")
			}
		}
	}
	if len(users) > 0 {
		return &InUseError{ID: v.ID, Users: users}
	}
	delete(all.schemas, v.ID)
	if _, err := all.compile(); err != nil {
		var ie *InvalidError
		errors.As(err, &ie)
		return &InUseError{ID: v.ID, Users: ie.Problems}
	}
	v.Deleted = true
	return s.store.PutSubject(ctx, sub)
}

// InUseError says what still names a schema version. It wraps ErrInUse.
type InUseError struct {
	ID    string
	Users []string
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s: %s is still named by %s", ErrInUse, e.ID, strings.Join(e.Users, "; "))
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// ApplyMode says what ApplyAgent may do.
type ApplyMode int

const (
	// CreateOrUpdate writes the blueprint whether the agent exists or not.
	CreateOrUpdate ApplyMode = iota
	// CreateOnly refuses an agent that exists (ErrExists).
	CreateOnly
	// UpdateOnly refuses an agent that does not exist (ErrNotFound).
	UpdateOnly
)

// ApplyAgent checks a blueprint document exactly as at start-up (with the
// registered schemas) and stores it. It returns the stored agent, whose
// Revision is what new runs of the agent record. Applying the very same
// document again stores nothing. ErrInvalid (an *InvalidError), ErrExists,
// ErrNotFound, ErrConflict.
func (s *Service) ApplyAgent(ctx context.Context, doc []byte, mode ApplyMode, origin Origin) (*Agent, error) {
	doc, err := compact(doc)
	if err != nil {
		return nil, err
	}
	name, err := blueprintName(doc)
	if err != nil {
		return nil, &InvalidError{Problems: []string{err.Error()}}
	}
	prev, err := s.store.Agent(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		if mode == UpdateOnly {
			return nil, err
		}
		prev = nil
	case err != nil:
		return nil, err
	case mode == CreateOnly:
		return nil, fmt.Errorf("%w: agent %q (revision %d); update it with PUT /v1/agents/%s", ErrExists, name, prev.Revision, name)
	}
	all, _, err := s.current(ctx, false)
	if err != nil {
		return nil, err
	}
	all.agents[name] = doc
	if _, err := all.compile(); err != nil {
		return nil, err
	}
	if prev != nil && bytes.Equal(prev.Blueprint, doc) && prev.Origin == origin {
		return prev, nil
	}
	a := &Agent{Name: name, Blueprint: doc, Origin: origin, UpdatedAt: s.now().UTC()}
	if prev != nil {
		a.Revision = prev.Revision
	}
	if err := s.store.PutAgent(ctx, a); err != nil {
		return nil, err
	}
	s.logger.Info("blueprint applied", "agent", name, "origin", origin, "revision", a.Revision)
	return a, nil
}

// DeleteAgent deletes an agent's blueprint (its history stays in the
// bucket, so runs begun under it finish under it). ErrNotFound, ErrConflict.
func (s *Service) DeleteAgent(ctx context.Context, name string) error {
	a, err := s.store.Agent(ctx, name)
	if err != nil {
		return err
	}
	return s.store.DeleteAgent(ctx, name, a.Revision)
}

// current reads the documents in force: every live schema version and,
// with agents, every blueprint.
func (s *Service) current(ctx context.Context, agents bool) (docs, []*Subject, error) {
	d := newDocs()
	subs, err := s.store.Subjects(ctx)
	if err != nil {
		return d, nil, err
	}
	for _, sub := range subs {
		for _, v := range sub.Live() {
			d.schemas[v.ID] = v.Schema
		}
	}
	if agents {
		as, err := s.store.Agents(ctx)
		if err != nil {
			return d, nil, err
		}
		for _, a := range as {
			d.agents[a.Name] = a.Blueprint
		}
	}
	return d, subs, nil
}

// parseSchema compacts a schema document and splits its $id.
func parseSchema(doc []byte) (compacted []byte, id, name, version string, err error) {
	if doc, err = compact(doc); err != nil {
		return nil, "", "", "", &InvalidError{Problems: []string{err.Error()}}
	}
	if id, err = docID(doc); err == nil {
		name, version, err = SplitID(id)
	}
	if err != nil {
		return nil, "", "", "", &InvalidError{Problems: []string{err.Error()}}
	}
	return doc, strings.TrimSuffix(id, "#"), name, version, nil
}

// Compile compiles the given schema documents and blueprint documents as
// one registry, checked exactly as a --config folder; its error is an
// *InvalidError.
func Compile(schemaDocs, blueprintDocs [][]byte) (*schemas.Registry, error) {
	d := newDocs()
	for _, doc := range schemaDocs {
		_, id, _, _, err := parseSchema(doc)
		if err != nil {
			return nil, err
		}
		d.schemas[id] = doc
	}
	for _, doc := range blueprintDocs {
		name, err := blueprintName(doc)
		if err != nil {
			return nil, &InvalidError{Problems: []string{err.Error()}}
		}
		d.agents[name] = doc
	}
	return d.compile()
}
