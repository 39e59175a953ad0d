package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/schemas"
)

// maxSeedTries bounds the compare-and-set retries of one seeded entry
// against gateways seeding the same buckets at the same time.
const maxSeedTries = 5

// SeedReport says what Seed did, entry by entry ("schema <id>" or
// "agent <name>").
type SeedReport struct {
	Added    []string // not registered before
	Replaced []string // registered from the folder before, and changed in it since
	// Kept are entries registered or deleted through the API that the
	// folder differs from: the registered state stays, never silently
	// overridden.
	Kept []string
}

// Seed applies a configuration folder, already loaded (and so checked)
// with schemas.Load, to the buckets: what is missing is added, what the
// folder itself put there before is replaced when the file changed (so the
// --config flow works as it always did: edit the file, restart), and what
// was registered or deleted through the API is kept so, reported in Kept. Compatibility
// levels are not applied to the folder: it is the configuration, as before
// the registry became a service; `agentgate schema push DIR` applies a
// folder as a checked change instead.
func (s *Service) Seed(ctx context.Context, reg *schemas.Registry) (*SeedReport, error) {
	rep := &SeedReport{}
	byName := make(map[string][]*schemas.Schema)
	for _, sc := range reg.Schemas() {
		if strings.HasPrefix(sc.ID, schemas.InlinePrefix) {
			continue
		}
		name, _, err := SplitID(sc.ID)
		if err != nil {
			return nil, err
		}
		byName[name] = append(byName[name], sc)
	}
	for _, name := range sortedKeys(byName) {
		if err := s.retry(ctx, func() error { return s.seedSubject(ctx, name, byName[name], rep) }); err != nil {
			return rep, err
		}
	}
	for _, bp := range reg.Blueprints() {
		doc, err := json.Marshal(bp)
		if err != nil {
			return rep, fmt.Errorf("registry: encoding blueprint %s: %w", bp.Name, err)
		}
		if err := s.retry(ctx, func() error { return s.seedAgent(ctx, bp.Name, doc, rep) }); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (s *Service) retry(ctx context.Context, f func() error) error {
	var err error
	for range maxSeedTries {
		if err = f(); !errors.Is(err, ErrConflict) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func (s *Service) seedSubject(ctx context.Context, name string, files []*schemas.Schema, rep *SeedReport) error {
	sub, err := s.store.Subject(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		sub = &Subject{Name: name}
	case err != nil:
		return err
	}
	var added, replaced, kept []string
	for _, f := range files {
		doc, id, _, version, err := parseSchema(f.Raw)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Source, err)
		}
		v := sub.Find(version)
		switch {
		case v == nil:
			sub.Versions = append(sub.Versions, Version{Version: version, ID: id, Schema: doc, Origin: OriginConfig, RegisteredAt: s.now().UTC()})
			added = append(added, "schema "+id)
		case v.Deleted:
			// Deleted through the API: the folder does not bring it back.
			kept = append(kept, "schema "+id)
		case bytes.Equal(v.Schema, doc):
		case v.Origin == OriginConfig:
			v.Schema, v.RegisteredAt = doc, s.now().UTC()
			replaced = append(replaced, "schema "+id)
		default:
			kept = append(kept, "schema "+id)
		}
	}
	if len(added)+len(replaced) > 0 {
		if err := s.store.PutSubject(ctx, sub); err != nil {
			return err
		}
	}
	rep.Added, rep.Replaced = append(rep.Added, added...), append(rep.Replaced, replaced...)
	rep.Kept = append(rep.Kept, kept...)
	return nil
}

func (s *Service) seedAgent(ctx context.Context, name string, doc []byte, rep *SeedReport) error {
	doc, err := compact(doc)
	if err != nil {
		return err
	}
	prev, err := s.store.Agent(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		prev = nil
		// Deleted through the API (the seed never deletes): the folder
		// does not bring it back.
		if deleted, err := s.store.agentDeleted(ctx, name); err != nil {
			return err
		} else if deleted {
			rep.Kept = append(rep.Kept, "agent "+name)
			return nil
		}
	case err != nil:
		return err
	case bytes.Equal(prev.Blueprint, doc):
		return nil
	case prev.Origin != OriginConfig:
		rep.Kept = append(rep.Kept, "agent "+name)
		return nil
	}
	a := &Agent{Name: name, Blueprint: doc, Origin: OriginConfig, UpdatedAt: s.now().UTC()}
	what := &rep.Added
	if prev != nil {
		a.Revision, what = prev.Revision, &rep.Replaced
	}
	if err := s.store.PutAgent(ctx, a); err != nil {
		return err
	}
	*what = append(*what, "agent "+name)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
