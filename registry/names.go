package registry

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/agentgate/agentgate/jtd"
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

// docID returns the id of a schema document: a JSON Schema's "$id", or a
// JSON Type Definition's "metadata.id" (contract section 5).
func docID(doc []byte) (string, error) {
	var head struct {
		ID       json.RawMessage `json:"$id"`
		Metadata struct {
			ID json.RawMessage `json:"id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return "", fmt.Errorf("%w: not a JSON object: %w", ErrInvalid, err)
	}
	raw := head.ID
	if len(raw) == 0 {
		raw = head.Metadata.ID
	}
	var id string
	if len(raw) == 0 || json.Unmarshal(raw, &id) != nil || id == "" {
		return "", fmt.Errorf("%w: the schema has no $id string (nor, for a JSON Type Definition, metadata.id)", ErrInvalid)
	}
	return id, nil
}

// SchemaID returns the id of a schema document: its "$id", or for a JSON
// Type Definition its "metadata.id". ErrInvalid when it has neither.
func SchemaID(doc []byte) (string, error) { return docID(doc) }

// isJTD reports whether a schema document is a JSON Type Definition: it
// names itself by metadata.id, not $id.
func isJTD(doc []byte) bool {
	var head struct {
		ID       *json.RawMessage `json:"$id"`
		Metadata struct {
			ID *json.RawMessage `json:"id"`
		} `json:"metadata"`
	}
	return json.Unmarshal(doc, &head) == nil && head.ID == nil && head.Metadata.ID != nil
}

// comparable returns the document schema diff compares: a JSON Type
// Definition's JSON Schema translation, any other document as it is.
func comparable(doc []byte) ([]byte, error) {
	if !isJTD(doc) {
		return doc, nil
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	j, err := jtd.FromValue(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(j.JSONSchema())
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
	// In the form json.Marshal gives a json.RawMessage (<, > and & escaped
	// in strings), so a document compares equal to itself once stored.
	var out bytes.Buffer
	json.HTMLEscape(&out, b.Bytes())
	return out.Bytes(), nil
}
