package schemas

import (
	"encoding/json"
	"fmt"

	"github.com/agentgate/agentgate/jtd"
)

// DraftJTD is the Schema.Draft of a JSON Type Definition (RFC 8927) schema.
const DraftJTD = "rfc8927"

// jtdSuffix ends the file name of a JTD schema in DIR/schemas.
const jtdSuffix = ".jtd.json"

// jtdFile loads one JTD schema file: checked against RFC 8927, named by
// its metadata.id (an absolute URI ending in a semantic version, like a
// JSON Schema's $id), translated to JSON Schema 2020-12 for the normalizer
// and the other tools that walk a schema (ForModel's prompt view
// included), and compiled once. The Schema validates with RFC 8927's own
// semantics; its Raw is the JTD document as written. It returns nil (after recording
// why) when the file is not usable.
func (l *loader) jtdFile(p string) *Schema {
	file, raw, doc, ok := l.readObject(p)
	if !ok {
		return nil
	}
	j, err := jtd.FromValue(doc)
	if err != nil {
		l.fail(file, fmt.Errorf("%w: %w", ErrJTD, err))
		return nil
	}
	if at := aliasUnderMapping(j, "", false); at != "" {
		l.fail(file, fmt.Errorf("%w: metadata.aliases at %s: the normalizer does not rename members inside a discriminator's mapping", ErrBadAlias, at))
		return nil
	}
	id, version, err := schemaID(map[string]any{"$id": j.Metadata[jtd.MetaID]})
	if err != nil {
		l.fail(file, fmt.Errorf("metadata.id: %w", err))
		return nil
	}
	if prev, dup := l.idSource[id]; dup {
		l.fail(file, fmt.Errorf("%w: %q is also declared by %s", ErrDuplicateID, id, prev))
		return nil
	}
	l.idSource[id] = file
	translated := j.JSONSchema()
	traw, err := json.Marshal(translated)
	if err != nil {
		l.fail(file, fmt.Errorf("%w: %w", ErrJTD, err))
		return nil
	}
	// Decoded again so that the normalizer sees what a schema file gives:
	// json.Number and plain maps throughout.
	tdoc, err := decodeObject(traw)
	if err != nil {
		l.fail(file, fmt.Errorf("%w: %w", ErrJTD, err))
		return nil
	}
	s, err := l.define(traw, tdoc, id, file)
	if err != nil {
		l.fail(file, fmt.Errorf("%w: its JSON Schema translation: %w", ErrJTD, err))
		return nil
	}
	if errs := checkAliases(tdoc); len(errs) > 0 {
		for _, err := range errs {
			l.fail(file, fmt.Errorf("metadata.aliases: %w", err))
		}
		delete(l.reg.schemas, id)
		delete(l.sources, id)
		return nil
	}
	s.Version, s.Draft, s.Raw, s.jtd = version, DraftJTD, json.RawMessage(raw), j
	s.Title, _ = j.Metadata["title"].(string)
	s.Description, _ = j.Metadata["description"].(string)
	return s
}

// aliasUnderMapping returns the location of the first metadata.aliases
// inside a discriminator's mapping, or "": the JSON Schema translation of
// a discriminator is an anyOf, under which the normalizer renames nothing.
func aliasUnderMapping(s *jtd.Schema, at string, under bool) string {
	if s == nil {
		return ""
	}
	if _, ok := s.Metadata[jtd.MetaAliases]; ok && under {
		return at
	}
	found := ""
	visit := func(c *jtd.Schema, cat string, u bool) {
		if found == "" {
			found = aliasUnderMapping(c, cat, u)
		}
	}
	for k, d := range s.Definitions {
		visit(d, at+"/definitions/"+k, false)
	}
	visit(s.Elements, at+"/elements", under)
	visit(s.Values, at+"/values", under)
	for k, p := range s.Properties {
		visit(p, at+"/properties/"+k, under)
	}
	for k, p := range s.OptionalProperties {
		visit(p, at+"/optionalProperties/"+k, under)
	}
	for k, m := range s.Mapping {
		visit(m, at+"/mapping/"+k, true)
	}
	return found
}
