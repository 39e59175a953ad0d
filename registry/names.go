package registry

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// SplitID splits a schema $id into its name and its version:
// "https://x/pr-review/1.0.0" is ("https://x/pr-review", "1.0.0"). It
// returns an error wrapping ErrInvalid when the last path segment is not a
// full semantic version.
func SplitID(id string) (name, version string, err error) {
	id = strings.TrimSuffix(id, "#")
	i := strings.LastIndexAny(id, "/:")
	if i <= 0 || i == len(id)-1 {
		return "", "", fmt.Errorf("%w: $id %q does not end in a version segment", ErrInvalid, id)
	}
	name, version = id[:i], id[i+1:]
	core, _, _ := strings.Cut(strings.SplitN(version, "+", 2)[0], "-")
	if !semver.IsValid("v"+version) || strings.Count(core, ".") != 2 {
		return "", "", fmt.Errorf("%w: $id %q does not end in a semantic version (…/1.0.0)", ErrInvalid, id)
	}
	return name, version, nil
}

// docID returns the $id of a schema document.
func docID(doc []byte) (string, error) {
	var head struct {
		ID json.RawMessage `json:"$id"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return "", fmt.Errorf("%w: not a JSON object: %w", ErrInvalid, err)
	}
	var id string
	if len(head.ID) == 0 || json.Unmarshal(head.ID, &id) != nil || id == "" {
		return "", fmt.Errorf("%w: the schema has no $id string", ErrInvalid)
	}
	return id, nil
}

// blueprintName returns the "name" of a blueprint document.
func blueprintName(doc []byte) (string, error) {
	var head struct {
		Name json.RawMessage `json:"name"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return "", fmt.Errorf("%w: not a JSON object: %w", ErrInvalid, err)
	}
	var name string
	if len(head.Name) == 0 || json.Unmarshal(head.Name, &name) != nil || name == "" {
		return "", fmt.Errorf("%w: the blueprint has no name string", ErrInvalid)
	}
	return name, nil
}

// subjectKey is a schema name's key in the schemas bucket: names hold
// characters (":", "/") that keys may not, so the key is the name in
// unpadded base64url.
func subjectKey(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(name))
}

// compact returns doc without insignificant white space, so that the same
// document written twice compares equal.
func compact(doc []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return b.Bytes(), nil
}
