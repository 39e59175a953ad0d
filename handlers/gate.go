package handlers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/schemas"
)

// DefaultMaxPayload is the largest raw output accepted (1 MiB).
const DefaultMaxPayload = 1 << 20

// DefaultMaxViolations bounds the violations one outcome reports.
const DefaultMaxViolations = 100

// DefaultMaxRetries applies to agents that have no blueprint but name a
// schema with the Schema-Id header.
const DefaultMaxRetries = 1

// Registry is what the gate needs of the schema and blueprint registry.
type Registry interface {
	Blueprint(name string) (*schemas.Blueprint, bool)
	Schema(id string) (*schemas.Schema, bool)
}

// BlueprintRevisions is implemented by a Registry whose blueprints change
// while the gateway runs (the registry service's live view). The gate then
// records in a new run's state the revision of the blueprint it judged the
// first attempt with, and judges every later attempt of the run by that
// revision, so that a blueprint change applies to runs that start after it.
type BlueprintRevisions interface {
	// BlueprintRevision returns the agent's current blueprint and its
	// revision.
	BlueprintRevision(name string) (*schemas.Blueprint, uint64, bool)
	// BlueprintAt returns the agent's blueprint as it was at revision rev;
	// false when that revision is no longer known.
	BlueprintAt(name string, rev uint64) (*schemas.Blueprint, bool)
}

// GateConfig configures a Gate.
type GateConfig struct {
	Registry Registry
	// MaxPayload is the largest raw output accepted (default
	// DefaultMaxPayload); a larger one is a payload_too_large dead letter.
	MaxPayload int
	// MaxDepth bounds nesting (default jsontext.DefaultMaxDepth).
	MaxDepth int
	// MaxMessage is the largest outcome message the bus accepts (default
	// 0: no limit). A dead letter that would exceed it keeps a reference to
	// the raw stream instead of a copy of the payload.
	MaxMessage int
	// MaxViolations bounds the violations an outcome reports (default
	// DefaultMaxViolations); the rest are counted in violations_omitted.
	MaxViolations int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (c *GateConfig) setDefaults() {
	if c.MaxPayload == 0 {
		c.MaxPayload = DefaultMaxPayload
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = jsontext.DefaultMaxDepth
	}
	if c.MaxViolations == 0 {
		c.MaxViolations = DefaultMaxViolations
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports every problem with the configuration.
func (c GateConfig) Validate() error {
	var errs []error
	if c.Registry == nil {
		errs = append(errs, fmt.Errorf("%w: no registry", ErrBadConfig))
	}
	if c.MaxPayload < 0 || c.MaxDepth < 0 || c.MaxMessage < 0 || c.MaxViolations < 0 {
		errs = append(errs, fmt.Errorf("%w: negative limit", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Gate decides the outcome of a raw output: the pure heart of the gateway.
type Gate struct {
	cfg GateConfig
}

// NewGate returns a Gate, or ErrBadConfig.
func NewGate(cfg GateConfig) (*Gate, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Gate{cfg: cfg}, nil
}

// Decision is the gate's verdict on one raw output: what to publish where,
// and how the run's state changes.
type Decision struct {
	// Outcome is empty when nothing is to be published: the (run, attempt)
	// already has an outcome.
	Outcome contract.Outcome
	RunID   string
	AgentID string
	Attempt int
	// SchemaID is the schema the output was checked against, if any.
	SchemaID string
	// MsgID and Payload make the outcome message, with Headers; where it
	// goes is the bus's business (contract section 1): the subject of
	// Outcome for AgentID, or of the dead letters no agent can be trusted
	// with when Unattributed.
	MsgID   string
	Payload []byte
	// Unattributed is set on a dead letter whose envelope does not name
	// its agent unambiguously.
	Unattributed bool
	// ErrorType is set for dead letters.
	ErrorType contract.ErrorType
	// State is the run's new state; nil leaves it as it was.
	State *contract.RunState
	// Refusal is, for a refusal, how it was recognised (RefusalByHeader,
	// RefusalByObject, RefusalByText, RefusalByPattern), for telemetry.
	Refusal string
	// Violations and Normalizations are what the pipeline found, for
	// telemetry.
	Violations     []contract.Violation
	Normalizations []contract.Normalization
	// Republish is set when the outcome was already recorded for this very
	// input (a redelivery): it is emitted again, under the same
	// Nats-Msg-Id, in case it did not go out the first time; RecordedAt is
	// when the run's state recorded it. The Emitter must not store it twice
	// (see Emitter).
	Republish  bool
	RecordedAt time.Time
}

// Headers are the headers of the outcome message.
func (d Decision) Headers() map[string]string {
	return map[string]string{
		contract.HeaderRunID:   d.RunID,
		contract.HeaderAgentID: d.AgentID,
		contract.HeaderAttempt: strconv.Itoa(d.Attempt),
		contract.HeaderOutcome: string(d.Outcome),
		contract.HeaderMsgID:   d.MsgID,
	}
}

// Decide returns the outcome of env given the run's current state (nil for
// a run never seen). It never fails: every problem is an outcome.
func (g *Gate) Decide(env Envelope, st *contract.RunState) Decision {
	return g.decide(env, st, nil)
}

// decide is Decide; a non-nil verdict stands in for the pipeline's (a
// streamed output stopped early).
func (g *Gate) decide(env Envelope, st *contract.RunState, verdict *Verdict) (d Decision) {
	now := g.cfg.Now().UTC()
	var bpRev uint64
	defer func() {
		// A run records the blueprint revision it started with, once.
		if d.State != nil && d.State.BlueprintRevision == 0 && bpRev != 0 {
			d.State.BlueprintRevision = bpRev
		}
	}()
	m, reason := ParseMeta(env)
	if reason != "" {
		return g.deadLetter(env, m, m.Attempt, contract.ErrInvalidEnvelope, reason, nil, nil, now)
	}
	if st != nil && env.Origin.Seq != 0 && st.InputSeq == env.Origin.Seq && st.InputStream == env.Origin.Stream {
		// This very input produced the recorded outcome and is delivered
		// again: the gateway stopped between recording and publishing, or
		// before the ack. Emit the recorded outcome again, under the same
		// Nats-Msg-Id: the Emitter stores it only if it is not stored yet.
		o := contract.OutcomeFor(st.Status)
		id := st.OutcomeMsgID
		if id == "" {
			id = contract.MsgID(st.RunID, st.Attempts, o)
		}
		return Decision{
			Outcome: o, RunID: st.RunID, AgentID: st.AgentID, Attempt: st.Attempts,
			MsgID: id, Payload: st.Outcome, Republish: true, RecordedAt: st.UpdatedAt,
		}
	}
	if st != nil && st.AgentID != "" && st.AgentID != m.AgentID {
		return g.deadLetter(env, m, m.Attempt, contract.ErrInvalidEnvelope,
			fmt.Sprintf("run %q belongs to agent %q, not %q", m.RunID, st.AgentID, m.AgentID), nil, nil, now)
	}
	attempt := m.Attempt
	if attempt == 0 {
		attempt = contract.NextAttempt(st)
	}
	switch {
	case m.ReplayOf != 0:
		// A replayed dead letter reopens the run for its attempt, once per
		// dead letter, and never a run that ended well; a forged or stale
		// Replay-Of reopens nothing.
		if reason := replayProblem(env, m, attempt, st); reason != "" {
			m.ReplayOf = 0 // named after the input, not as a replay
			return g.deadLetter(env, m, attempt, contract.ErrInvalidEnvelope, reason, nil, st, now)
		}
	case st != nil && attempt <= st.Attempts:
		// This (run, attempt) already has an outcome: the recorded one
		// stays the answer.
		return Decision{RunID: m.RunID, AgentID: m.AgentID, Attempt: attempt}
	}

	bp, bpRev, hasBP := g.blueprint(m.AgentID, st)
	var schema *schemas.Schema
	toolOrAnswer := hasBP && bp.Reply == schemas.ReplyToolOrAnswer
	switch {
	case toolOrAnswer:
		// The blueprint's tools say what is valid (section 9).
	case hasBP && bp.OutputSchema != nil:
		schema = bp.OutputSchema
	case m.SchemaID != "":
		s, ok := g.cfg.Registry.Schema(m.SchemaID)
		if !ok {
			return g.deadLetter(env, m, attempt, contract.ErrUnknownSchema,
				fmt.Sprintf("schema %q is not in the registry", m.SchemaID), nil, st, now)
		}
		schema = s
	case !hasBP:
		return g.deadLetter(env, m, attempt, contract.ErrUnknownAgent,
			fmt.Sprintf("no blueprint for agent %q and no Schema-Id header", m.AgentID), nil, st, now)
	}
	if len(env.Payload) > g.cfg.MaxPayload {
		return g.deadLetter(env, m, attempt, contract.ErrPayloadTooLarge,
			fmt.Sprintf("payload is %d bytes, over the limit of %d", len(env.Payload), g.cfg.MaxPayload), nil, st, now)
	}
	if !utf8.Valid(env.Payload) {
		return g.deadLetter(env, m, attempt, contract.ErrInvalidEncoding,
			"payload is not valid UTF-8", nil, st, now)
	}
	maxAttempts := DefaultMaxRetries + 1
	if hasBP {
		maxAttempts = bp.MaxAttempts()
	}
	if st != nil && st.Status.Finished() && m.ReplayOf == 0 {
		return g.deadLetter(env, m, attempt, contract.ErrRunAlreadyCompleted,
			fmt.Sprintf("run %q already ended %s at attempt %d", m.RunID, st.Status, st.Attempts), nil, st, now)
	}
	if attempt > maxAttempts {
		return g.deadLetter(env, m, attempt, contract.ErrAttemptsExhausted,
			fmt.Sprintf("attempt %d is beyond the run's allowance of %d", attempt, maxAttempts), nil, st, now)
	}

	if verdict != nil && verdict.Incomplete != "" {
		// Never cut short silently, not even as a refusal.
		t := contract.ErrStreamIncomplete
		if verdict.FailType != "" {
			t = verdict.FailType
		}
		return g.deadLetter(env, m, attempt, t, verdict.Incomplete, nil, st, now)
	}
	text, detection, refused := refusal(m, env.Payload)
	if !refused && (schema != nil || toolOrAnswer) {
		// An agent that owes JSON and answers in plain words of refusal
		// has said no: asking again would only nag it.
		var cfg RefusalConfig
		if hasBP {
			cfg = RefusalConfig{Off: !bp.RefusalDetection, Patterns: bp.RefusalPatterns}
		}
		if detection, refused = PlainRefusal(env.Payload, cfg, g.cfg.MaxDepth); refused {
			text = string(env.Payload)
		}
	}
	if refused {
		ev := contract.RefusalEvent{
			EventType: contract.EventRefusal, RunID: m.RunID, AgentID: m.AgentID, SessionID: m.SessionID,
			Attempt: attempt, Refusal: text, Detection: detection, Timestamp: now,
		}
		d := g.publish(env, contract.OutcomeRefused, m, attempt, schemaID(schema), ev, st, now)
		d.Refusal = detection
		return d
	}

	opts := CheckOptions{MaxDepth: g.cfg.MaxDepth, Coerce: true}
	if hasBP {
		opts.ExtraFields, opts.Coerce, opts.LossyRepair = bp.ExtraFields, bp.Coerce, bp.LossyRepair
		opts.Rules = bp.Rules
	}
	var against *schemas.Blueprint
	if hasBP {
		against = bp
	}
	switch {
	case verdict != nil && schema != nil && !toolOrAnswer:
		return g.verdict(env, m, attempt, maxAttempts, *verdict, schemaTarget(schema, against), st, now)
	case toolOrAnswer:
		v, toolSchema := ReplyCheck(env.Payload, bp, opts)
		return g.verdict(env, m, attempt, maxAttempts, v, target{id: toolSchema, prompt: ReplyModelSchema(bp), bp: bp}, st, now)
	case schema != nil:
		if base := partialBase(against, st, attempt); base != nil {
			opts.Base, opts.BaseAttempt = base, attempt-1
		}
		return g.verdict(env, m, attempt, maxAttempts, Check(env.Payload, schema, opts), schemaTarget(schema, against), st, now)
	}
	text = string(env.Payload)
	ev := contract.ResultEvent{
		EventType: contract.EventResult, RunID: m.RunID, AgentID: m.AgentID, SessionID: m.SessionID,
		Attempt: attempt, ResultText: &text, Normalizations: []contract.Normalization{}, Timestamp: now,
	}
	return g.publish(env, contract.OutcomeValid, m, attempt, "", ev, st, now)
}

// target is what an output was checked against, for its outcome.
type target struct {
	id       string // schema_id ("" for a tool_or_answer answer)
	declared string // an inline schema's own $id
	// schema is the schema checked against; nil for tool_or_answer.
	schema *schemas.Schema
	// prompt is the schema as retry prompts show it.
	prompt any
	// bp is the agent's blueprint; nil for an agent without one.
	bp *schemas.Blueprint
}

func schemaTarget(s *schemas.Schema, bp *schemas.Blueprint) target {
	return target{id: s.ID, declared: s.DeclaredID, schema: s, prompt: s.ForModel(), bp: bp}
}

// blueprint returns the blueprint to judge an attempt of the agent's run
// with, and its revision (0 when the registry has no revisions): the
// revision the run recorded when there is one and the registry still knows
// it, else the current one.
func (g *Gate) blueprint(agent string, st *contract.RunState) (*schemas.Blueprint, uint64, bool) {
	revs, ok := g.cfg.Registry.(BlueprintRevisions)
	if !ok {
		bp, has := g.cfg.Registry.Blueprint(agent)
		return bp, 0, has
	}
	if st != nil && st.BlueprintRevision != 0 {
		if bp, ok := revs.BlueprintAt(agent, st.BlueprintRevision); ok {
			return bp, st.BlueprintRevision, true
		}
	}
	return revs.BlueprintRevision(agent)
}

// verdict turns the pipeline's verdict into the outcome: a valid result, a
// retry request while attempts are left (a partial re-ask where the
// blueprint asks for one and it can say it all), else a dead letter.
func (g *Gate) verdict(env Envelope, m Meta, attempt, maxAttempts int, v Verdict, tg target,
	st *contract.RunState, now time.Time) Decision {
	schemaID := tg.id
	if v.Valid {
		ev := contract.ResultEvent{
			EventType: contract.EventResult, RunID: m.RunID, AgentID: m.AgentID, SessionID: m.SessionID,
			Attempt: attempt, ResultData: v.Data, DeclaredID: tg.declared,
			Normalized: len(v.Normalizations) > 0, Normalizations: v.Normalizations, Refusal: v.Refusal, Timestamp: now,
		}
		if schemaID != "" {
			ev.SchemaID = &schemaID
		}
		d := g.publish(env, contract.OutcomeValid, m, attempt, schemaID, ev, st, now)
		d.Normalizations = v.Normalizations
		return d
	}

	verr := contract.ValidationError{
		Error: contract.ValidationErrorCode, SchemaID: schemaID, DeclaredID: tg.declared, AgentID: m.AgentID,
		Violations: v.Violations, RawOutput: contract.TruncateRaw(env.Payload), Stage: v.Stage,
	}
	if n := len(verr.Violations); n > g.cfg.MaxViolations {
		verr.Violations, verr.ViolationsOmitted = verr.Violations[:g.cfg.MaxViolations], n-g.cfg.MaxViolations
	}
	if attempt < maxAttempts {
		verr.Retryable = true
		req := RetryRequest{Agent: m.AgentID, Attempt: attempt, Schema: tg.prompt}
		var partial *contract.PartialRetry
		if tg.bp != nil {
			_, req.Template = tg.bp.Templates()
			if tg.bp.Retry == schemas.RetryPartial && v.Stage == "" {
				req.Partial, partial = partialAsk(tg.schema, v)
			}
		}
		for {
			req.Violations = verr.Violations
			ev := contract.RetryEvent{
				EventType: contract.EventRetryRequested, RunID: m.RunID, AgentID: m.AgentID, SessionID: m.SessionID,
				Attempt: attempt, NextAttempt: attempt + 1, Error: verr,
				RetryPrompt: BuildRetryPrompt(req), Partial: partial, Timestamp: now,
			}
			d := g.publish(env, contract.OutcomeRetry, m, attempt, schemaID, ev, st, now)
			if d.ErrorType == contract.ErrPayloadTooLarge && len(verr.Violations) > 1 {
				// Over the bus's limit: the model still gets its retry,
				// with the first half of the violations and a count.
				keep := len(verr.Violations) / 2
				verr.ViolationsOmitted += len(verr.Violations) - keep
				verr.Violations = verr.Violations[:keep]
				continue
			}
			d.Violations, d.Normalizations = v.Violations, v.Normalizations
			return d
		}
	}
	retries := maxAttempts - 1
	msg := fmt.Sprintf("Output did not match schema after %d %s", retries, plural(retries, "retry", "retries"))
	d := g.deadLetter(env, m, attempt, contract.ErrOutputSchemaValidationFailed, msg, &verr, st, now)
	d.SchemaID = schemaID
	d.Violations, d.Normalizations = v.Violations, v.Normalizations
	return d
}

// refusal recognises a declared refusal (contract section 3.3): the
// Output-Kind header, or a payload that is a JSON object whose only key is
// "refusal" holding a string. It returns the refusal's text and its
// detection (RefusalByHeader or RefusalByObject).
func refusal(m Meta, payload []byte) (text, detection string, ok bool) {
	if m.Refusal {
		return string(payload), RefusalByHeader, true
	}
	trimmed := bytes.TrimSpace(payload)
	if len(trimmed) == 0 || trimmed[0] != '{' || !bytes.Contains(trimmed, []byte(`"refusal"`)) {
		return "", "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(trimmed, &obj) != nil || len(obj) != 1 {
		return "", "", false
	}
	if raw, ok := obj["refusal"]; !ok || json.Unmarshal(raw, &text) != nil {
		return "", "", false
	}
	return text, RefusalByObject, true
}

func (g *Gate) publish(env Envelope, o contract.Outcome, m Meta, attempt int, schemaID string, ev any, st *contract.RunState, now time.Time) Decision {
	d := Decision{
		Outcome: o, RunID: m.RunID, AgentID: m.AgentID, Attempt: attempt, SchemaID: schemaID,
		MsgID:   msgID(m, attempt, o),
		Payload: encode(ev),
	}
	if g.cfg.MaxMessage > 0 && len(d.Payload) > g.cfg.MaxMessage-1024 {
		// The outcome would not fit on the bus (a result_text of a payload
		// full of characters JSON escapes, say): publishing it would fail
		// on every delivery.
		return g.deadLetter(env, m, attempt, contract.ErrPayloadTooLarge,
			fmt.Sprintf("the %s outcome would be %d bytes, over the bus's limit of %d", o, len(d.Payload), g.cfg.MaxMessage), nil, st, now)
	}
	d.State = nextState(st, m, attempt, o, d, env.Origin, now)
	return d
}

// msgID is the outcome's Nats-Msg-Id: <run>.<attempt>.<outcome>, with the
// replayed dead letter appended for a replay, whose outcome for the same
// attempt must not be taken for a duplicate of the first.
func msgID(m Meta, attempt int, o contract.Outcome) string {
	id := contract.MsgID(m.RunID, attempt, o)
	if m.ReplayOf != 0 {
		id += replayID(m.ReplayOf)
	}
	return id
}

func (g *Gate) deadLetter(env Envelope, m Meta, attempt int, t contract.ErrorType, msg string,
	verr *contract.ValidationError, st *contract.RunState, now time.Time) Decision {
	ev := contract.FailedEvent{
		EventType: contract.EventFailed, RunID: m.RunID, AgentID: m.AgentID, SessionID: m.SessionID,
		Attempt: attempt, Status: string(contract.RunFailed),
		Error:      contract.FailedError{Type: t, Message: msg},
		Validation: verr, Raw: keepRaw(env), Timestamp: now,
	}
	if verr != nil {
		for _, v := range verr.Violations {
			ev.Error.ValidationErrors = append(ev.Error.ValidationErrors, ViolationLine(v))
		}
	}
	d := Decision{
		Outcome: contract.OutcomeDLQ, RunID: m.RunID, AgentID: m.AgentID, Attempt: attempt,
		ErrorType: t, Unattributed: t == contract.ErrInvalidEnvelope && !agentTrusted(env),
	}
	// A dead letter marks the run failed, except for the types the contract
	// says leave the state alone, and except on a finished run: its
	// recorded outcome stays the answer.
	records := !t.LeavesRunState() && (st == nil || !st.Status.Finished() || m.ReplayOf != 0)
	switch {
	case records:
		d.MsgID = msgID(m, attempt, contract.OutcomeDLQ)
	case m.RunID != "" && attempt > 0:
		// Not the (run, attempt)'s recorded outcome: named after the input
		// too, so that a later recorded one is not taken for its
		// duplicate, while a redelivery of this input still is.
		d.MsgID = msgID(m, attempt, contract.OutcomeDLQ) + "." + env.Origin.tag()
	default:
		d.MsgID = env.Origin.tag() + "." + string(contract.OutcomeDLQ)
	}
	d.Payload = encode(ev)
	if g.cfg.MaxMessage > 0 && len(d.Payload) > g.cfg.MaxMessage-1024 {
		// Too large to carry a copy: the raw stream keeps the original.
		ev.Raw.Payload, ev.Raw.PayloadBase64, ev.Raw.Omitted = nil, "", true
		d.Payload = encode(ev)
	}
	if records {
		d.State = nextState(st, m, attempt, contract.OutcomeDLQ, d, env.Origin, now)
	}
	return d
}

// agentTrusted reports whether an invalid envelope still names its agent
// unambiguously, so that its dead letter can go to that agent's subject.
func agentTrusted(env Envelope) bool {
	if env.Misaddressed != "" {
		return false
	}
	h := env.Header(contract.HeaderAgentID)
	return env.Agent == "" || h == "" || h == env.Agent
}

func keepRaw(env Envelope) contract.RawMessage {
	r := contract.RawMessage{Subject: env.Origin.Subject, Headers: env.Headers, Size: len(env.Payload)}
	if env.Origin.Seq != 0 {
		r.Stream, r.Seq = env.Origin.Stream, env.Origin.Seq
	}
	if r.Headers == nil {
		r.Headers = map[string][]string{}
	}
	if utf8.Valid(env.Payload) {
		s := string(env.Payload)
		r.Payload = &s
	} else {
		r.PayloadBase64 = base64.StdEncoding.EncodeToString(env.Payload)
	}
	return r
}

func nextState(st *contract.RunState, m Meta, attempt int, o contract.Outcome, d Decision, in Origin, now time.Time) *contract.RunState {
	next := contract.RunState{RunID: m.RunID, AgentID: m.AgentID}
	if st != nil {
		next = *st
	}
	next.Status = contract.StatusFor(o)
	next.Attempts = max(next.Attempts, attempt)
	next.Outcome = d.Payload
	next.OutcomeMsgID = d.MsgID
	next.UpdatedAt = now
	next.InputStream, next.InputSeq = in.Stream, in.Seq
	if m.ReplayOf != 0 {
		next.Replays = append(slices.Clone(next.Replays), m.ReplayOf)
	}
	return &next
}

// encode marshals an outcome without HTML escaping: consumers read the
// text as the model wrote it.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value here is built from decoded JSON and plain structs.
		panic(fmt.Sprintf("handlers: encoding outcome: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func schemaID(s *schemas.Schema) string {
	if s == nil {
		return ""
	}
	return s.ID
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ProcessingLimit is the processing_limit dead letter of env, which went
// over limit (LimitDecisionTime, LimitMaxDeliver), keeping the raw output;
// deliveries, when known, is how often it was delivered. Given the run's
// state it records the run failed (unless it has finished), so a
// redelivery is not decided again; with st nil and deliveries set (the
// store may be what fails) it leaves the state alone.
func (g *Gate) ProcessingLimit(env Envelope, st *contract.RunState, limit, msg string, deliveries int) Decision {
	now := g.cfg.Now().UTC()
	m, _ := ParseMeta(env)
	attempt := m.Attempt
	if attempt == 0 {
		attempt = contract.NextAttempt(st)
	}
	d := g.deadLetter(env, m, attempt, contract.ErrProcessingLimit, msg, nil, st, now)
	if deliveries > 0 && st == nil {
		// Not the run's recorded outcome: named after the input.
		d.State = nil
		d.MsgID = contract.MsgID(m.RunID, attempt, contract.OutcomeDLQ) + "." + env.Origin.tag()
	}
	var ev contract.FailedEvent
	if err := json.Unmarshal(d.Payload, &ev); err == nil {
		ev.Error.Limit, ev.Error.Deliveries = limit, deliveries
		d.Payload = encode(ev)
		if d.State != nil {
			d.State.Outcome = d.Payload
		}
	}
	return d
}

// Internal is the dead letter of a raw output whose processing failed for a
// reason of agentgate's own (a panic, or an error that outlived every
// retry), so that it ends where an operator sees it instead of being
// redelivered forever. The run's state is left as it was.
func (g *Gate) Internal(env Envelope, cause string) Decision {
	m, _ := ParseMeta(env)
	return g.deadLetter(env, m, m.Attempt, contract.ErrInternal, cause, nil, nil, g.cfg.Now().UTC())
}
