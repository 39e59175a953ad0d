package schemas

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/schemas/validator"
)

// semverRE is the regular expression semver.org gives for SemVer 2.0.0.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// PatternMatchTimeout bounds one match of a pattern that runs on the
// ECMA-262 engine (see [Registry]): a match that takes longer fails, so a
// pattern with catastrophic backtracking cannot stall the gateway. It is
// the validator's (package validator).
const PatternMatchTimeout = validator.PatternMatchTimeout

// schemaFile loads, checks and compiles one schema file. It returns nil
// (after recording why) when the file is not usable.
func (l *loader) schemaFile(p string) *Schema {
	file, raw, doc, ok := l.readObject(p)
	if !ok {
		return nil
	}
	id, version, err := schemaID(doc)
	if err != nil {
		l.fail(file, err)
		return nil
	}
	if prev, dup := l.idSource[id]; dup {
		l.fail(file, fmt.Errorf("%w: %q is also declared by %s", ErrDuplicateID, id, prev))
		return nil
	}
	l.idSource[id] = file
	if err := checkLimits(raw, doc, id, file, l.idSource); err != nil {
		l.fail(file, err)
		return nil
	}
	s, err := l.define(raw, doc, id, file)
	if err != nil {
		l.fail(file, err)
		return nil
	}
	if errs := append(checkAliases(doc), checkSensitive(doc)...); len(errs) > 0 {
		for _, err := range errs {
			l.fail(file, err)
		}
		return nil
	}
	s.Version = version
	return s
}

// define checks a schema file's doc (or a JTD file's translation) and
// registers it in the registry under id, uncompiled: compileFiles compiles
// every file once all are defined, so that files may $ref each other
// whatever their order.
func (l *loader) define(raw []byte, doc map[string]any, id, source string) (*Schema, error) {
	s, src, err := l.newSchema(raw, doc, id, source)
	if err != nil {
		return nil, err
	}
	l.sources[id] = src
	l.reg.schemas[id] = s
	return s, nil
}

// compileFiles compiles every defined schema file, in the order of their
// file names, with the registry's compiler, which loads the files a $ref
// reaches from l.sources (see validator.Compiler.Serve). A file that does not
// compile (an unresolved $ref, say) is reported and left out of the
// registry.
func (l *loader) compileFiles() {
	l.reg.compiler.Serve(l.sources, nil)
	var files []*Schema
	for id := range l.sources {
		files = append(files, l.reg.schemas[id])
	}
	slices.SortFunc(files, func(a, b *Schema) int { return cmp.Compare(a.Source, b.Source) })
	for _, s := range files {
		compiled, err := l.reg.compiler.CompileID(s.ID)
		if err != nil {
			if s.jtd != nil {
				err = fmt.Errorf("%w: its JSON Schema translation: %w", ErrJTD, err)
			}
			l.fail(s.Source, err)
			delete(l.reg.schemas, s.ID)
			continue
		}
		s.compiled = compiled
	}
}

// compile checks an inline blueprint schema, compiles it with c under id
// and registers it in the registry under id. raw is doc's text; doc is an
// object or a boolean. An inline schema that declares its own $id is
// compiled by a compiler of its own (see loader.inlineCompiler), keyed
// there by that $id.
func (l *loader) compile(c *validator.Compiler, raw []byte, doc any, id, source string) (*Schema, error) {
	obj, _ := doc.(map[string]any)
	compileID := id
	declared, _ := obj["$id"].(string)
	if declared != "" && !strings.HasPrefix(declared, "#") {
		compileID = "" // the document's own $id keys it in its own compiler
	}
	s, src, err := l.newSchema(raw, doc, id, source)
	if err != nil {
		return nil, err
	}
	if s.compiled, err = c.Compile(src, compileID); err != nil {
		return nil, err
	}
	if compileID == "" {
		s.DeclaredID = declared
	}
	l.reg.schemas[id] = s
	return s, nil
}

// newSchema checks doc (see checkDoc) and returns its Schema, not yet
// compiled nor registered, with the source to compile.
func (l *loader) newSchema(raw []byte, doc any, id, source string) (*Schema, *validator.Source, error) {
	if _, dup := l.reg.schemas[id]; dup {
		return nil, nil, fmt.Errorf("%w: %q is already registered", ErrDuplicateID, id)
	}
	draft, src, err := checkDoc(l.reg.compiler, raw, doc)
	if err != nil {
		return nil, nil, err
	}
	obj, _ := doc.(map[string]any)
	s := &Schema{
		ID:     id,
		Draft:  draft,
		Source: source,
		Raw:    json.RawMessage(raw),
		Doc:    obj,
	}
	s.Title, _ = obj["title"].(string)
	s.Description, _ = obj["description"].(string)
	if s.Rules, err = docRules(obj); err != nil {
		return nil, nil, err
	}
	return s, src, nil
}

// checkDoc is the check every schema takes, whether a schema file, an
// inline blueprint schema or a test of the JSON Schema test suite: the
// draft, then the validator's check with c (the meta-schema, the
// corrections of the validator's defects). doc is raw decoded: an object,
// or a boolean for the test suite. It returns the draft and the source to
// compile.
func checkDoc(c *validator.Compiler, raw []byte, doc any) (string, *validator.Source, error) {
	obj, _ := doc.(map[string]any)
	draft, err := schemaDraft(obj)
	if err != nil {
		return "", nil, err
	}
	src, err := c.Check(raw, doc)
	var meta *validator.MetaSchemaError
	if errors.As(err, &meta) {
		return "", nil, fmt.Errorf("%w (%s): %s", ErrMetaSchema, draft, meta.Summary())
	}
	if err != nil {
		return "", nil, err
	}
	return draft, src, nil
}

// decodeObject decodes a JSON object with encoding/json and UseNumber,
// refusing invalid UTF-8 (which encoding/json would silently replace) and
// trailing data.
// readObject reads the schema file p and decodes it as a JSON object,
// recording why when it cannot (ok false). file is p as errors name it.
func (l *loader) readObject(p string) (file string, raw []byte, doc map[string]any, ok bool) {
	file = l.name(p)
	raw, err := fs.ReadFile(l.fsys, p)
	if err == nil {
		doc, err = decodeObject(raw)
	}
	if err != nil {
		l.fail(file, err)
		return file, nil, nil, false
	}
	return file, raw, doc, true
}

func decodeObject(raw []byte) (map[string]any, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrInvalidJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrInvalidJSON)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: want a JSON object, got %s", ErrInvalidJSON, jsonx.TypeName(v, jsonx.IntegerApart))
	}
	if err := checkDuplicates(raw); err != nil {
		return nil, err
	}
	return m, nil
}

// checkDuplicates reports an object member that appears twice: encoding/json
// keeps the last one silently (and the validator's decoder rejects it).
func checkDuplicates(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := duplicates(dec, "$"); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	return nil
}

func duplicates(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := make(map[string]bool)
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := t.(string)
			if seen[name] {
				return fmt.Errorf("member %q appears twice in %s", name, path)
			}
			seen[name] = true
			if err := duplicates(dec, contract.Member(path, name)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := duplicates(dec, contract.Index(path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

// schemaID checks a file schema's $id and returns it with its version.
func schemaID(doc map[string]any) (id, version string, err error) {
	v, ok := doc["$id"]
	if !ok {
		return "", "", fmt.Errorf("%w: no $id", ErrNoID)
	}
	id, ok = v.(string)
	if !ok {
		return "", "", fmt.Errorf("%w: $id is a %s, not a string", ErrNoID, jsonx.TypeName(v, jsonx.IntegerApart))
	}
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%w: %q: %w", ErrNoID, id, err)
	case !u.IsAbs(), (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return "", "", fmt.Errorf("%w: %q is not an absolute URI", ErrNoID, id)
	case strings.Contains(id, "#"):
		return "", "", fmt.Errorf("%w: %q has a fragment", ErrNoID, id)
	case strings.HasPrefix(id, InlinePrefix):
		return "", "", fmt.Errorf("%w: %q uses the prefix reserved for inline blueprint schemas", ErrNoID, id)
	}
	p := u.Path
	if u.Opaque != "" {
		p = u.Opaque
	}
	version = p[strings.LastIndexAny(p, "/:")+1:]
	if !semverRE.MatchString(version) {
		return "", "", fmt.Errorf("%w: %q (last segment %q; want for example .../pr-review/1.0.0)", ErrBadVersion, id, version)
	}
	return id, version, nil
}

// schemaDraft returns the draft $schema names: 2020-12 when absent.
func schemaDraft(doc map[string]any) (string, error) {
	v, ok := doc["$schema"]
	if !ok {
		return Draft2020, nil
	}
	s, _ := v.(string)
	switch strings.TrimSuffix(s, "#") {
	case "https://json-schema.org/draft/2020-12/schema":
		return Draft2020, nil
	case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema":
		return Draft07, nil
	}
	return "", fmt.Errorf("%w: %s (want %q or %q)", ErrUnsupportedDraft, compactJSON(v),
		"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#")
}

// compactJSON renders v for an error message.
// It leaves <, > and & as they are: messages are read by people and
// models, not embedded in HTML.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
