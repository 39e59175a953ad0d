package registry

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/agentgate/agentgate/schemas/compat"
)

// Level is a schema name's compatibility level: what a new version is
// checked against before it is registered. The names are Confluent Schema
// Registry's.
type Level string

// The compatibility levels. Backward is the default.
const (
	// Backward: output valid under the previous version stays valid under
	// the new one, so consumers of valid output keep working.
	Backward Level = "BACKWARD"
	// BackwardTransitive is Backward against every earlier version.
	BackwardTransitive Level = "BACKWARD_TRANSITIVE"
	// Forward: output valid under the new version is valid under the
	// previous one, so consumers still on the old schema keep working.
	Forward Level = "FORWARD"
	// ForwardTransitive is Forward against every earlier version.
	ForwardTransitive Level = "FORWARD_TRANSITIVE"
	// Full is Backward and Forward.
	Full Level = "FULL"
	// FullTransitive is Full against every earlier version.
	FullTransitive Level = "FULL_TRANSITIVE"
	// None checks nothing.
	None Level = "NONE"
)

// DefaultLevel applies to a name whose level was never set.
const DefaultLevel = Backward

// Levels lists every level.
var Levels = []Level{Backward, BackwardTransitive, Forward, ForwardTransitive, Full, FullTransitive, None}

// ParseLevel returns the level named s (case-insensitive), or ErrBadLevel.
func ParseLevel(s string) (Level, error) {
	l := Level(strings.ToUpper(strings.TrimSpace(s)))
	if !slices.Contains(Levels, l) {
		return "", fmt.Errorf("%w %q (want one of %s)", ErrBadLevel, s, levelList())
	}
	return l, nil
}

func levelList() string {
	names := make([]string, len(Levels))
	for i, l := range Levels {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

func (l Level) transitive() bool { return strings.HasSuffix(string(l), "_TRANSITIVE") }
func (l Level) backward() bool {
	return l == Backward || l == BackwardTransitive || l == Full || l == FullTransitive
}
func (l Level) forward() bool {
	return l == Forward || l == ForwardTransitive || l == Full || l == FullTransitive
}

// Prior is an earlier registered version that a new one is checked against.
type Prior struct {
	Version string
	Doc     []byte
}

// Check decides whether version newVersion (document newDoc) of a name may
// be registered after the given earlier versions under level.
//
// A version starts a new line when its major version is new (or, below
// 1.0.0, its minor version: anything may change in 0.y.z): a breaking
// change is allowed there, and only there. Within a line, a new version
// must be above every registered one (ErrVersionOrder) and is compared with
// the previous version (or, for the *_TRANSITIVE levels, every earlier
// version of the line): it returns an *IncompatibleError listing the
// breaking changes, or nil. Documents that are not JSON schemas return an
// error wrapping ErrInvalid.
func Check(level Level, name, newVersion string, newDoc []byte, priors []Prior) error {
	if level == "" {
		level = DefaultLevel
	}
	if level == None {
		return nil
	}
	nv := "v" + newVersion
	var line []Prior
	for _, p := range priors {
		if lineOf(p.Version) != lineOf(newVersion) {
			continue
		}
		if semver.Compare("v"+p.Version, nv) >= 0 {
			return fmt.Errorf("%w: %s %s is not above the registered %s", ErrVersionOrder, name, newVersion, p.Version)
		}
		line = append(line, p)
	}
	if len(line) == 0 {
		return nil
	}
	slices.SortFunc(line, func(a, b Prior) int { return semver.Compare("v"+a.Version, "v"+b.Version) })
	if !level.transitive() {
		line = line[len(line)-1:]
	}
	ierr := &IncompatibleError{Name: name, Version: newVersion, Level: level}
	for _, p := range line {
		if level.backward() {
			if err := breaking(ierr, p, p.Doc, newDoc, "backward"); err != nil {
				return err
			}
		}
		if level.forward() {
			if err := breaking(ierr, p, newDoc, p.Doc, "forward"); err != nil {
				return err
			}
		}
	}
	if len(ierr.Changes) > 0 {
		return ierr
	}
	return nil
}

// breaking adds to e the breaking changes from doc from to doc to.
func breaking(e *IncompatibleError, p Prior, from, to []byte, direction string) error {
	from, err := comparable(from)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if to, err = comparable(to); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	r, err := compat.Compare(from, to)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for _, c := range r.Changes {
		if c.Breaking {
			e.Changes = append(e.Changes, BreakingChange{Against: p.Version, Direction: direction, Change: c})
		}
	}
	return nil
}

// lineOf is the part of a version within which changes must be compatible:
// "v1" for 1.4.2, "v0.3" for 0.3.1.
func lineOf(version string) string {
	v := "v" + version
	if semver.Major(v) == "v0" {
		return semver.MajorMinor(v)
	}
	return semver.Major(v)
}

// CompareVersions orders two semantic versions (without the "v").
func CompareVersions(a, b string) int { return semver.Compare("v"+a, "v"+b) }
