package registry

import (
	"errors"
	"strings"

	"github.com/agentgate/agentgate/schemas/compat"
)

var (
	// ErrInvalid is returned for a document that is not a usable schema or
	// blueprint: not JSON, no versioned $id, a meta-schema violation, an
	// unknown output schema... It wraps the schemas package's reason.
	ErrInvalid = errors.New("invalid document")

	// ErrNotFound is returned for a schema name, version or agent that is
	// not registered (or was deleted).
	ErrNotFound = errors.New("not found")

	// ErrIncompatible is returned, inside an *IncompatibleError, for a
	// version that breaks the name's compatibility level without a major
	// version bump.
	ErrIncompatible = errors.New("incompatible schema version")

	// ErrImmutable is returned when a registered version is registered
	// again with a different document.
	ErrImmutable = errors.New("registered versions are immutable")

	// ErrVersionOrder is returned for a version below a registered version
	// of the same major line (a new 1.2.1 when 1.3.0 exists).
	ErrVersionOrder = errors.New("version below the latest of its line")

	// ErrConflict is returned when another writer changed the same name or
	// agent between the read and the write: the losing writer's change is
	// not stored. Retrying re-checks it against the winner.
	ErrConflict = errors.New("concurrent change")

	// ErrExists is returned when creating an agent that already exists.
	ErrExists = errors.New("already exists")

	// ErrInUse is returned when deleting a schema version that a blueprint
	// or another schema still names.
	ErrInUse = errors.New("in use")

	// ErrTooLarge is returned when a write would make an entry larger than
	// the NATS server accepts in one message (1 MiB by default): one entry
	// holds every version of a schema name.
	ErrTooLarge = errors.New("entry too large")

	// ErrBadLevel is returned for an unknown compatibility level.
	ErrBadLevel = errors.New("unknown compatibility level")
)

// IncompatibleError lists why a version was refused. It wraps
// ErrIncompatible.
type IncompatibleError struct {
	Name    string
	Version string
	Level   Level
	// Changes are the breaking changes, each naming the version it was
	// compared against and the direction of the check.
	Changes []BreakingChange
}

// BreakingChange is one breaking change found against one earlier version.
type BreakingChange struct {
	Against   string `json:"against"`   // the earlier version
	Direction string `json:"direction"` // "backward" (old outputs under the new schema) or "forward" (new outputs under the old schema)
	compat.Change
}

func (e *IncompatibleError) Error() string {
	var b strings.Builder
	b.WriteString(ErrIncompatible.Error())
	b.WriteString(": ")
	b.WriteString(e.Name + " " + e.Version + " breaks " + string(e.Level) + " without a major version bump:")
	for i, c := range e.Changes {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" " + c.Path + " " + c.Keyword + ": " + c.Message + " (" + c.Direction + " against " + c.Against + ")")
	}
	return b.String()
}

func (e *IncompatibleError) Unwrap() error { return ErrIncompatible }
