package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/agentgate/agentgate/rules"
)

// Values of Blueprint.ExtraFields.
const (
	// ExtraFieldsStrip removes the members a closed object does not allow,
	// recording each removal (the default).
	ExtraFieldsStrip = "strip"
	// ExtraFieldsReject reports such members as violations.
	ExtraFieldsReject = "reject"
)

// Values of Blueprint.LossyRepair (contract section 3.1).
const (
	// LossyRepairRetry makes a repair that would lose, invent or move
	// content a violation, so the attempt is retried (the default).
	LossyRepairRetry = "retry"
	// LossyRepairAccept lets such a repaired output validate, each loss
	// recorded as an op lossy normalization.
	LossyRepairAccept = "accept"
)

// ReplyToolOrAnswer is the Blueprint.Reply of an agent whose output is a
// tool call or an answer (contract section 9).
const ReplyToolOrAnswer = "tool_or_answer"

// nameRE is the shape of an agent name (a single NATS subject token) and of
// a tool name.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Blueprint is one agent's configuration (contract section 5).
type Blueprint struct {
	Name             string
	Description      string
	OutputSchema     *Schema         // nil: free-text output
	ParametersSchema json.RawMessage // as in the file, may be nil
	MaxRetries       int             // default 1
	ExtraFields      string          // ExtraFieldsStrip (default) or ExtraFieldsReject
	Coerce           bool            // default true
	LossyRepair      string          // LossyRepairRetry (default) or LossyRepairAccept
	SystemPrompt     string
	Source           string // file path

	// Reply is "" (the output is the agent's result) or ReplyToolOrAnswer
	// (contract section 9).
	Reply string
	// Tools holds, for ReplyToolOrAnswer, each tool's input schema by tool
	// name: a registry schema named by its $id, or one given inline,
	// compiled under "urn:agentgate:inline:<agent>/tools/<tool>".
	Tools map[string]*Schema

	// Rules are the blueprint's business rules ("rules"), checked after the
	// output schema (and its own rules) on the normalized document; nil for
	// none.
	Rules *rules.Set
	// RefusalDetection turns the recognition of plain-text refusals on
	// (default true; refusal_detection).
	RefusalDetection bool
	// RefusalPatterns are the blueprint's own refusal phrasings
	// (refusal_patterns), compiled at load.
	RefusalPatterns []*regexp.Regexp
	// Retry is RetryFull (default) or RetryPartial.
	Retry string
	// PromptTemplate and RetryTemplate are the blueprint's own prompt texts
	// (text/template, executed with PromptData and RetryData); "" keeps
	// the contract's defaults.
	PromptTemplate, RetryTemplate string

	promptTmpl, retryTmpl *template.Template

	// Upstream, when set, names an agent on the Synadia Agent Protocol
	// whose gated twin agentgate registers (contract section 10).
	Upstream *Upstream
}

// Upstream names the agent a blueprint gates (contract section 10): by its
// identity (Agent, Owner and Name, the tokens of agents.<agent>.<owner>.<name>)
// or by one instance's service id (InstanceID). Callers find it through
// discovery, never by constructing its subject.
type Upstream struct {
	Agent      string `json:"agent,omitempty"`
	Owner      string `json:"owner,omitempty"`
	Name       string `json:"name,omitempty"`
	InstanceID string `json:"instance_id,omitempty"`
}

// UnmarshalJSON refuses members other than the four: a misspelt
// "instance_id" must not silently name nothing.
func (u *Upstream) UnmarshalJSON(b []byte) error {
	type plain Upstream
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Named from the blueprint's root, as readBlueprint reports it.
			te.Field = strings.TrimSuffix("upstream."+te.Field, ".")
			return te
		}
		return fmt.Errorf("upstream: %w", err)
	}
	*u = Upstream(p)
	return nil
}

// upstreamTokenRE is a subject token of the protocol's naming rules (its
// section 2.2): no "$", no wildcard, no dot, no space.
var upstreamTokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,63}$`)

// Validate reports what makes the upstream unusable: neither an identity
// nor an instance id, a partial identity, or a token that is not a plain
// subject token.
func (u *Upstream) Validate() error {
	var errs []error
	identity := u.Agent != "" || u.Owner != "" || u.Name != ""
	switch {
	case !identity && u.InstanceID == "":
		errs = append(errs, errors.New(`upstream needs "agent", "owner" and "name", or "instance_id"`))
	case identity && (u.Agent == "" || u.Owner == "" || u.Name == ""):
		errs = append(errs, errors.New(`upstream needs all of "agent", "owner" and "name"`))
	}
	for _, f := range []struct{ key, v string }{{"agent", u.Agent}, {"owner", u.Owner}, {"name", u.Name}, {"instance_id", u.InstanceID}} {
		if f.v != "" && !upstreamTokenRE.MatchString(f.v) {
			errs = append(errs, fmt.Errorf("upstream %s %q is not a subject token [A-Za-z0-9_-]{1,63}", f.key, f.v))
		}
	}
	if u.Agent == "gate" {
		errs = append(errs, errors.New(`upstream agent "gate" is agentgate's own twins: a twin cannot gate a twin`))
	}
	return errors.Join(errs...)
}

// Templates returns the parsed prompt_template and retry_template; nil
// for each the blueprint does not set.
func (b *Blueprint) Templates() (prompt, retry *template.Template) {
	return b.promptTmpl, b.retryTmpl
}

// MaxAttempts is the number of attempts a run gets: MaxRetries + 1.
func (b *Blueprint) MaxAttempts() int { return b.MaxRetries + 1 }

// ToolNames returns the names of the blueprint's tools, sorted.
func (b *Blueprint) ToolNames() []string {
	names := make([]string, 0, len(b.Tools))
	for name := range b.Tools {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// blueprintJSON is a blueprint as written in a file and by MarshalJSON.
type blueprintJSON struct {
	Name             string                     `json:"name"`
	Description      string                     `json:"description"`
	OutputSchema     json.RawMessage            `json:"output_schema,omitempty"`
	ParametersSchema json.RawMessage            `json:"parameters_schema,omitempty"`
	MaxRetries       *int                       `json:"max_retries,omitempty"`
	ExtraFields      *string                    `json:"extra_fields,omitempty"`
	Coerce           *bool                      `json:"coerce,omitempty"`
	LossyRepair      *string                    `json:"lossy_repair,omitempty"`
	SystemPrompt     string                     `json:"system_prompt"`
	Reply            string                     `json:"reply,omitempty"`
	Tools            map[string]json.RawMessage `json:"tools,omitempty"`
	Rules            json.RawMessage            `json:"rules,omitempty"`
	Upstream         *Upstream                  `json:"upstream,omitempty"`
	RefusalDetection *bool                      `json:"refusal_detection,omitempty"`
	RefusalPatterns  []string                   `json:"refusal_patterns,omitempty"`
	Retry            string                     `json:"retry,omitempty"`
	PromptTemplate   string                     `json:"prompt_template,omitempty"`
	RetryTemplate    string                     `json:"retry_template,omitempty"`
}

// blueprintFields are the members a blueprint file may have.
var blueprintFields = []string{
	"name", "description", "output_schema", "parameters_schema", "max_retries",
	"extra_fields", "coerce", "lossy_repair", "system_prompt", "reply", "tools", "upstream",
	"refusal_detection", "refusal_patterns", "retry", "prompt_template", "retry_template", "rules",
}

// MarshalJSON writes the blueprint as in contract section 5 with the
// defaults applied: output_schema is the schema's $id, the inline schema
// object for an inline schema, or absent for free-text output; reply and
// tools (section 9) appear only when set, lossy_repair only when it is
// not the default. Loading what it writes gives the
// same blueprint back.
func (b *Blueprint) MarshalJSON() ([]byte, error) {
	extra := cmpOr(b.ExtraFields, ExtraFieldsStrip)
	w := blueprintJSON{
		Name:             b.Name,
		Description:      b.Description,
		ParametersSchema: b.ParametersSchema,
		MaxRetries:       &b.MaxRetries,
		ExtraFields:      &extra,
		Coerce:           &b.Coerce,
		SystemPrompt:     b.SystemPrompt,
		Reply:            b.Reply,
		Upstream:         b.Upstream,
		RefusalDetection: &b.RefusalDetection,
		Retry:            cmpOr(b.Retry, RetryFull),
		PromptTemplate:   b.PromptTemplate,
		RetryTemplate:    b.RetryTemplate,
	}
	for _, re := range b.RefusalPatterns {
		w.RefusalPatterns = append(w.RefusalPatterns, re.String())
	}
	if b.OutputSchema != nil {
		w.OutputSchema = schemaRef(b.OutputSchema)
	}
	if b.LossyRepair == LossyRepairAccept {
		w.LossyRepair = &b.LossyRepair
	}
	if len(b.Tools) > 0 {
		w.Tools = make(map[string]json.RawMessage, len(b.Tools))
		for name, s := range b.Tools {
			w.Tools[name] = schemaRef(s)
		}
	}
	if b.Rules.Len() > 0 {
		w.Rules, _ = json.Marshal(b.Rules.Specs())
	}
	return json.Marshal(w)
}

// schemaRef is the $id string of a registry schema, or an inline schema's
// own document.
func schemaRef(s *Schema) json.RawMessage {
	if strings.HasPrefix(s.ID, InlinePrefix) {
		return s.Raw
	}
	b, _ := json.Marshal(s.ID)
	return b
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// blueprintFile loads one blueprint file, recording every problem.
func (l *loader) blueprintFile(p string) {
	file := l.name(p)
	f, err := l.readBlueprint(p)
	if err != nil {
		l.fail(file, err)
		return
	}
	if err := checkName(f.Name); err != nil {
		l.fail(file, err)
		return
	}
	if prev, dup := l.reg.blueprints[f.Name]; dup {
		l.fail(file, fmt.Errorf("%w: %q is also declared by %s", ErrDuplicateBlueprint, f.Name, prev.Source))
		return
	}

	var probs []error
	bad := func(format string, args ...any) {
		probs = append(probs, fmt.Errorf("%w: "+format, append([]any{ErrBadBlueprint}, args...)...))
	}
	b := &Blueprint{
		Name:             f.Name,
		Description:      f.Description,
		ParametersSchema: nullToNil(f.ParametersSchema),
		MaxRetries:       1,
		ExtraFields:      ExtraFieldsStrip,
		Coerce:           true,
		LossyRepair:      LossyRepairRetry,
		SystemPrompt:     f.SystemPrompt,
		Source:           file,
		Reply:            f.Reply,
		RefusalDetection: true,
		Retry:            RetryFull,
		PromptTemplate:   f.PromptTemplate,
		RetryTemplate:    f.RetryTemplate,
	}
	if f.RefusalDetection != nil {
		b.RefusalDetection = *f.RefusalDetection
	}
	for i, expr := range f.RefusalPatterns {
		re, err := regexp.Compile(expr)
		if err != nil {
			bad("refusal_patterns[%d]: %v", i, err)
			continue
		}
		b.RefusalPatterns = append(b.RefusalPatterns, re)
	}
	switch f.Retry {
	case "", RetryFull:
	case RetryPartial:
		b.Retry = RetryPartial
	default:
		bad("retry is %q, want %q or %q", f.Retry, RetryFull, RetryPartial)
	}
	if f.PromptTemplate != "" {
		t, err := parseTemplate("prompt_template", f.PromptTemplate, samplePrompt)
		if err != nil {
			probs = append(probs, err)
		}
		b.promptTmpl = t
	}
	if f.RetryTemplate != "" {
		t, err := parseTemplate("retry_template", f.RetryTemplate, sampleRetry)
		if err != nil {
			probs = append(probs, err)
		}
		b.retryTmpl = t
	}
	if f.MaxRetries != nil {
		b.MaxRetries = *f.MaxRetries
		if b.MaxRetries < 0 {
			bad("max_retries is %d, want 0 or more", b.MaxRetries)
		}
	}
	if f.ExtraFields != nil {
		b.ExtraFields = *f.ExtraFields
		if b.ExtraFields != ExtraFieldsStrip && b.ExtraFields != ExtraFieldsReject {
			bad("extra_fields is %q, want %q or %q", b.ExtraFields, ExtraFieldsStrip, ExtraFieldsReject)
		}
	}
	if f.Coerce != nil {
		b.Coerce = *f.Coerce
	}
	if f.LossyRepair != nil {
		b.LossyRepair = *f.LossyRepair
		if b.LossyRepair != LossyRepairRetry && b.LossyRepair != LossyRepairAccept {
			bad("lossy_repair is %q, want %q or %q", b.LossyRepair, LossyRepairRetry, LossyRepairAccept)
		}
	}
	if ps := b.ParametersSchema; ps != nil && !bytes.HasPrefix(bytes.TrimSpace(ps), []byte("{")) {
		bad("parameters_schema must be a JSON object")
	}
	if out := nullToNil(f.OutputSchema); out != nil {
		s, err := l.schemaOf(out, InlinePrefix+f.Name, "inline:"+f.Name)
		if err != nil {
			probs = append(probs, fmt.Errorf("output_schema: %w", err))
		}
		b.OutputSchema = s
	}
	switch {
	case f.Reply == "" && f.Tools != nil:
		bad("tools is set but reply is not %q", ReplyToolOrAnswer)
	case f.Reply == "":
	case f.Reply != ReplyToolOrAnswer:
		bad("reply is %q, want %q or nothing", f.Reply, ReplyToolOrAnswer)
	case len(f.Tools) == 0:
		bad("reply %q needs at least one tool in tools", ReplyToolOrAnswer)
	default:
		b.Tools = make(map[string]*Schema, len(f.Tools))
		for _, name := range slices.Sorted(maps.Keys(f.Tools)) {
			if !nameRE.MatchString(name) {
				bad("tool name %q is not valid (want [A-Za-z0-9_-]+)", name)
				continue
			}
			suffix := f.Name + "/tools/" + name
			s, err := l.schemaOf(f.Tools[name], InlinePrefix+suffix, "inline:"+suffix)
			if err != nil {
				probs = append(probs, fmt.Errorf("tools.%s: %w", name, err))
				continue
			}
			b.Tools[name] = s
		}
	}
	if set, err := compileRules(f.Rules); err != nil {
		probs = append(probs, fmt.Errorf("rules: %w", err))
	} else {
		b.Rules = set
	}
	if u := f.Upstream; u != nil {
		if err := u.Validate(); err != nil {
			bad("%w", err)
		}
		b.Upstream = u
	}
	for _, err := range probs {
		l.fail(file, err)
	}
	if len(probs) == 0 {
		l.reg.blueprints[b.Name] = b
	}
}

// readBlueprint reads and decodes a blueprint file, refusing unknown,
// misspelt, repeated and wrongly typed members.
func (l *loader) readBlueprint(p string) (blueprintJSON, error) {
	var f blueprintJSON
	raw, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		return f, err
	}
	if _, err := decodeObject(raw); err != nil {
		return f, err
	}
	if err := checkMembers(raw, blueprintFields); err != nil {
		return f, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return f, fmt.Errorf("%w: %s is a JSON %s, want %s", ErrBadBlueprint, te.Field, te.Value, jsonKind(te.Type))
		}
		return f, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
	}
	return f, nil
}

// checkName checks an agent name: a single NATS subject token.
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: no name", ErrBadBlueprint)
	case !nameRE.MatchString(name):
		return fmt.Errorf("%w: name %q is not a subject token (want [A-Za-z0-9_-]+)", ErrBadBlueprint, name)
	case name == "_":
		return fmt.Errorf(`%w: name "_" is reserved (agent.output.dlq._ holds dead letters tied to no agent)`, ErrBadBlueprint)
	}
	return nil
}

// schemaOf resolves a blueprint's schema member: a registry $id (string) or
// an inline schema object, compiled under inlineID.
func (l *loader) schemaOf(raw json.RawMessage, inlineID, source string) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: want a schema $id string or a schema object", ErrBadBlueprint)
	}
	switch raw[0] {
	case '"':
		var id string
		if err := json.Unmarshal(raw, &id); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
		}
		s, ok := l.reg.lookup(id)
		if !ok || strings.HasPrefix(id, InlinePrefix) {
			return nil, fmt.Errorf("%w: no schema file declares $id %q", ErrUnknownSchema, id)
		}
		return s, nil
	case 't', 'f':
		// The boolean schemas: true accepts every document, false none.
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("%w: want a schema $id string, a schema object or a boolean: %w", ErrBadBlueprint, err)
		}
		s, err := l.compile(l.reg.compiler, raw, b, inlineID, source)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
		}
		return s, nil
	case '{':
		doc, err := decodeObject(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
		}
		if err := l.checkInline(raw, doc, inlineID); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
		}
		c := l.reg.compiler
		if id, _ := doc["$id"].(string); id != "" && !strings.HasPrefix(id, "#") {
			// Its own $id is its base URI; a compiler of its own keeps it
			// from colliding with the registry and other inline schemas.
			c = l.inlineCompiler(doc)
		}
		s, err := l.compile(c, raw, doc, inlineID, source)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, err)
		}
		if errs := append(checkAliases(doc), checkSensitive(doc)...); len(errs) > 0 {
			delete(l.reg.schemas, inlineID)
			return nil, fmt.Errorf("%w: %w", ErrBadBlueprint, joinErrors(errs))
		}
		return s, nil
	default:
		return nil, fmt.Errorf("%w: want a schema $id string, a schema object or a boolean", ErrBadBlueprint)
	}
}

// checkMembers checks that the object in raw has only the allowed member
// names, spelled exactly (encoding/json would match them case-insensitively).
// decodeObject has already refused repeated members.
func checkMembers(raw []byte, allowed []string) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !slices.Contains(allowed, name) {
			return fmt.Errorf("unknown field %q (allowed: %s)", name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return raw
}

// jsonKind names the JSON type a Go field type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// joinErrors joins errs on one line, "; "-separated, keeping them all for
// errors.Is.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &joined{errs}
}

type joined struct{ errs []error }

func (j *joined) Error() string {
	msgs := make([]string, len(j.errs))
	for i, err := range j.errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (j *joined) Unwrap() []error { return j.errs }
