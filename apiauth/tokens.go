package apiauth

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Scope is what a token may do. Write includes Read.
type Scope int

// Scopes, weakest first.
const (
	// None is the scope of a request without a valid token.
	None Scope = iota
	// Read may call every GET route.
	Read
	// Write may also call the routes that change something (a dead-letter
	// replay, registry writes) and sees members marked x-sensitive.
	Write
)

// String is the scope as the token file writes it.
func (s Scope) String() string {
	switch s {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "none"
}

// ParseScope reads "read" or "write".
func ParseScope(s string) (Scope, error) {
	switch s {
	case "read":
		return Read, nil
	case "write":
		return Write, nil
	}
	return None, fmt.Errorf("unknown scope %q: want read or write", s)
}

// MinTokenLen is the shortest token accepted: shorter ones are guessable.
const MinTokenLen = 16

// maxTokenFile bounds what LoadFile reads.
const maxTokenFile = 1 << 20

// Tokens is a set of bearer tokens with their scopes. Only SHA-256 digests
// of the tokens are kept. The zero value holds no token. Safe for
// concurrent use once built.
type Tokens struct {
	entries []entry
}

type entry struct {
	digest [sha256.Size]byte
	scope  Scope
	name   string // "line N" of the file, for logs; never the token
}

// LoadFile reads a token file: one token per line as "SCOPE TOKEN", where
// SCOPE is read or write; blank lines and lines starting with # are
// skipped, and a # after the token starts a comment. It returns
// ErrBadTokenFile, naming the file and line, for anything else.
func LoadFile(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTokenFile, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrBadTokenFile, path, err)
	}
	if len(b) > maxTokenFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrBadTokenFile, path, maxTokenFile)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse reads the content of a token file (see LoadFile).
func Parse(b []byte) (*Tokens, error) {
	t := &Tokens{}
	var errs []error
	seen := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 2 {
			errs = append(errs, fmt.Errorf("%w: line %d: want \"SCOPE TOKEN\", got %d fields", ErrBadTokenFile, n, len(fields)))
			continue
		}
		scope, err := ParseScope(fields[0])
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: line %d: %w", ErrBadTokenFile, n, err))
			continue
		}
		if len(fields[1]) < MinTokenLen {
			errs = append(errs, fmt.Errorf("%w: line %d: token shorter than %d characters", ErrBadTokenFile, n, MinTokenLen))
			continue
		}
		d := sha256.Sum256([]byte(fields[1]))
		if first, dup := seen[d]; dup {
			errs = append(errs, fmt.Errorf("%w: line %d: same token as line %d", ErrBadTokenFile, n, first))
			continue
		}
		seen[d] = n
		t.entries = append(t.entries, entry{digest: d, scope: scope, name: fmt.Sprintf("line %d", n)})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%w: %w", ErrBadTokenFile, err))
	}
	if len(errs) == 0 && len(t.entries) == 0 {
		errs = append(errs, fmt.Errorf("%w: no token", ErrBadTokenFile))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Len is the number of tokens.
func (t *Tokens) Len() int {
	if t == nil {
		return 0
	}
	return len(t.entries)
}

// Lookup returns the scope of token (None when it is not one of t's) and
// the name of its line. Its time does not depend on which token matched,
// nor on how much of a wrong token is right: every entry's digest is
// compared with subtle.ConstantTimeCompare.
func (t *Tokens) Lookup(token string) (scope Scope, name string) {
	if t == nil {
		return None, ""
	}
	d := sha256.Sum256([]byte(token))
	for i := range t.entries {
		e := &t.entries[i]
		if subtle.ConstantTimeCompare(d[:], e.digest[:]) == 1 {
			scope, name = e.scope, e.name
		}
	}
	return scope, name
}
