package agentproto

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nuid"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/subjects"
)

// RunIDPrefix starts the run id of a gated exchange whose request carried
// no Run-Id header.
const RunIDPrefix = "gate-"

// serve takes one prompt: it is refused with 429 when MaxConcurrent
// exchanges are in flight, else handled on a goroutine of its own, for
// the micro framework calls handlers one at a time.
func (t *Twin) serve(req micro.Request) {
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		respondError(req, CodeInternal, "agentgate is shutting down", ErrorBody{Error: "shutting_down"}, "")
		return
	}
	select {
	case t.sem <- struct{}{}:
	default:
		t.mu.Unlock()
		respondError(req, CodeRateLimited, "too many prompts in flight",
			ErrorBody{Error: "rate_limited", Message: fmt.Sprintf("%d prompts are in flight for this twin", t.cfg.MaxConcurrent)}, "")
		return
	}
	t.inflight.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.inflight.Done()
		defer func() { <-t.sem }()
		t.exchange(req)
	}()
}

// exchange runs one gated exchange to its end: one response chunk or one
// error, then the terminator.
func (t *Twin) exchange(r micro.Request) {
	c := newCaller(r, t.cfg.KeepAlive)
	defer c.close()
	var req micro.Request = c
	env, err := ParseEnvelope(req.Data())
	if err != nil {
		respondError(req, CodeBadRequest, "malformed request", ErrorBody{Error: "bad_request", Message: err.Error()}, "")
		return
	}
	up := t.current()
	switch {
	case len(env.Attachments) > 0 && !up.AttachmentsOK:
		respondError(req, CodeBadRequest, "attachments not accepted",
			ErrorBody{Error: "attachments_not_accepted", Message: "this agent's prompt endpoint has attachments_ok false"}, "")
		return
	case int64(len(req.Data())) > t.maxRequest():
		respondError(req, CodeBadRequest, "request exceeds max_payload",
			ErrorBody{Error: "payload_too_large", Message: fmt.Sprintf("the request is %d bytes; max_payload is %s", len(req.Data()), FormatSize(t.maxRequest()))}, "")
		return
	}
	runID := strings.TrimSpace(req.Headers().Get(contract.HeaderRunID))
	if runID == "" || len(runID) > handlers.MaxRunIDLen {
		runID = RunIDPrefix + nuid.Next()
	}
	bp := t.blueprint()
	env.Prompt = handlers.WithOutputFormat(env.Prompt, bp)
	first := env
	body := env.Encode()
	if int64(len(body)) > up.MaxPayload {
		respondError(req, CodeBadRequest, "request exceeds max_payload",
			ErrorBody{Error: "payload_too_large", Message: "the prompt with the output-format section exceeds the upstream agent's max_payload"}, "")
		return
	}
	qs := &queries{}
	defer qs.close()
	st := &stream{
		nc: t.cfg.Conn, idle: t.cfg.Idle, maxBytes: t.cfg.MaxPayload, judge: prefixJudge(bp), queries: qs,
		relay: func(chunk []byte) { _ = req.Respond(chunk) },
	}
	log := t.cfg.Logger.With("agent", t.cfg.Blueprint.Name, "run_id", runID)
	// Bounded: the gate turns an attempt beyond the blueprint's allowance
	// into a dead letter, which ends the loop.
	for attempt := 1; ; attempt++ {
		end := st.run(t.ctx, up.PromptSubject, body)
		if end.kind == endNoResponders {
			// The instance went away: discover again, once.
			if found, err := Discover(t.ctx, t.cfg.Conn, *t.cfg.Blueprint.Upstream, t.cfg.DiscoveryWait); err == nil {
				t.setUpstream(found[0])
				up = found[0]
				end = st.run(t.ctx, up.PromptSubject, body)
			}
		}
		if end.kind == endCanceled {
			respondError(req, CodeInternal, "agentgate is shutting down",
				ErrorBody{Error: "shutting_down", Message: "the exchange was interrupted; the attempt has no outcome", Extra: map[string]any{"run_id": runID}}, runID)
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), judgeTimeout)
		d, err := t.cfg.Judge.Submit(ctx, t.envelope(runID, attempt, end.text, up), earlyVerdict(end, up))
		cancel()
		log.Debug("gated attempt", "attempt", attempt, "end", end.String(), "outcome", d.Outcome, "error", err)
		if err != nil {
			respondError(req, CodeInternal, "recording the outcome failed",
				ErrorBody{Error: "internal_error", Message: err.Error(), Extra: map[string]any{"run_id": runID}}, runID)
			return
		}
		switch d.Outcome {
		case contract.OutcomeRetry:
			var ev contract.RetryEvent
			if err := json.Unmarshal(d.Payload, &ev); err != nil {
				respondError(req, CodeInternal, "reading the retry request failed",
					ErrorBody{Error: "internal_error", Message: err.Error(), Extra: map[string]any{"run_id": runID}}, runID)
				return
			}
			body = t.retryBody(first, ev.RetryPrompt, up.MaxPayload)
			continue
		case contract.OutcomeValid:
			respondResult(req, d, runID)
		case contract.OutcomeRefused:
			respondRefusal(req, d, runID)
		case contract.OutcomeDLQ:
			respondDeadLetter(req, d, runID, end)
		default:
			respondError(req, CodeConflict, "the run already has an outcome for this attempt",
				ErrorBody{Error: "run_already_answered", Message: fmt.Sprintf("run %q already has an outcome for attempt %d; GET /v1/runs/%s", runID, attempt, runID),
					Extra: map[string]any{"run_id": runID, "attempt": attempt}}, runID)
		}
		return
	}
}

// formatSection is the output-format section of the blueprint the twin
// started with, "" for free-text agents: what its advertised max_payload
// leaves room for (an exchange appends the live blueprint's).
func (t *Twin) formatSection() string { return handlers.WithOutputFormat("", t.cfg.Blueprint) }

// blueprint is the blueprint an exchange starting now follows: the live
// registry's, while it still gates an upstream agent, else the one the
// twin started with.
func (t *Twin) blueprint() *schemas.Blueprint {
	if t.cfg.Blueprints != nil {
		if bp, ok := t.cfg.Blueprints.Blueprint(t.cfg.Blueprint.Name); ok && bp.Upstream != nil {
			return bp
		}
	}
	return t.cfg.Blueprint
}

// prefixJudge is the early-stop check of contract section 8, or nil where
// it does not apply (no output schema, or tool_or_answer).
func prefixJudge(bp *schemas.Blueprint) func([]byte) []contract.Violation {
	if bp.OutputSchema == nil || bp.Reply != "" {
		return nil
	}
	opts := normalize.Options{ExtraFields: bp.ExtraFields, Coerce: bp.Coerce}
	return func(prefix []byte) []contract.Violation {
		return normalize.PrefixViolations(prefix, bp.OutputSchema.Doc, bp.OutputSchema, opts)
	}
}

// envelope is one attempt's assembled answer as a raw output of the
// blueprint's agent, for the judge.
func (t *Twin) envelope(runID string, attempt int, text []byte, up Instance) handlers.Envelope {
	h := map[string][]string{
		contract.HeaderRunID:   {runID},
		contract.HeaderAgentID: {t.cfg.Blueprint.Name},
		contract.HeaderAttempt: {strconv.Itoa(attempt)},
	}
	if s := up.Metadata[MetaSession]; s != "" {
		h[contract.HeaderSessionID] = []string{s}
	}
	if text == nil {
		text = []byte{}
	}
	// A twin's attempt is on no stream: its dead letter names the agent's
	// raw subject, where its output would have come without the twin.
	return handlers.Envelope{Agent: t.cfg.Blueprint.Name, Headers: h, Payload: text,
		Origin: handlers.Origin{Subject: subjects.Raw(t.cfg.Blueprint.Name)}}
}

// earlyVerdict is what stands in for the pipeline's verdict when the
// stream did not complete.
func earlyVerdict(end streamEnd, up Instance) *handlers.Verdict {
	none := []contract.Normalization{}
	switch end.kind {
	case endStopped:
		return &handlers.Verdict{Violations: end.violations, Normalizations: none, Stage: "stream"}
	case endIdle:
		return &handlers.Verdict{Normalizations: none,
			Incomplete: fmt.Sprintf("the upstream agent sent nothing for the inactivity timeout (%d bytes of response so far)", len(end.text))}
	case endNoResponders:
		return &handlers.Verdict{Normalizations: none, FailType: contract.ErrUpstreamError,
			Incomplete: "no instance of the upstream agent serves " + up.PromptSubject}
	case endError:
		msg := fmt.Sprintf("the upstream agent answered with error %d: %s", end.code, end.description)
		if len(end.body) > 0 {
			msg += " " + contract.TruncateRaw(end.body)
		}
		return &handlers.Verdict{Normalizations: none, FailType: contract.ErrUpstreamError, Incomplete: msg}
	}
	// Complete, or too large (which the gate dead-letters by size).
	return nil
}

// respondResult sends the valid result as one response chunk: text is
// result_data as JSON (or result_text), and the object form's extra
// members say how it was reached.
func respondResult(req micro.Request, d handlers.Decision, runID string) {
	var ev struct {
		Attempt        int             `json:"attempt"`
		SchemaID       *string         `json:"schema_id"`
		ResultData     json.RawMessage `json:"result_data"`
		ResultText     *string         `json:"result_text"`
		Normalized     bool            `json:"normalized"`
		Normalizations json.RawMessage `json:"normalizations"`
	}
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		respondError(req, CodeInternal, "reading the result failed", ErrorBody{Error: "internal_error", Message: err.Error()}, runID)
		return
	}
	text := string(ev.ResultData)
	if ev.ResultText != nil {
		text = *ev.ResultText
	}
	data := map[string]any{
		"text": text, "run_id": runID, "attempt": ev.Attempt, "schema_id": ev.SchemaID,
		"normalized": ev.Normalized, "normalizations": ev.Normalizations,
	}
	if err := req.Respond(encode(map[string]any{"type": ChunkResponse, "data": data}), runHeader(runID)); err != nil {
		// Recorded and published, but too large for the caller's reply
		// (the server's max_payload): say so rather than end in silence.
		respondError(req, CodeInternal, "the result could not be sent",
			ErrorBody{Error: "payload_too_large", Message: "the valid result could not be sent on this connection: " + err.Error(),
				Extra: map[string]any{"run_id": runID, "attempt": ev.Attempt}}, runID)
		return
	}
	_ = req.Respond(nil)
}

// retryBody is the request a retry sends upstream. The protocol keeps no
// session between prompts, and instances share their subject (protocol
// section 3.3): the retry is the caller's whole request again, every
// member and attachment kept, its prompt followed by the retry prompt.
// When that exceeds the upstream's max_payload or the server's, the retry
// prompt alone.
func (t *Twin) retryBody(first Envelope, retryPrompt string, maxPayload int64) []byte {
	if server := t.cfg.Conn.MaxPayload(); server > 0 {
		maxPayload = min(maxPayload, server)
	}
	again := first
	again.Prompt = first.Prompt + "\n\n" + retryPrompt
	if body := again.Encode(); int64(len(body)) <= maxPayload {
		return body
	}
	return Envelope{Prompt: retryPrompt}.Encode()
}

// respondRefusal sends a refusal as error 403 (contract section 10).
func respondRefusal(req micro.Request, d handlers.Decision, runID string) {
	var ev contract.RefusalEvent
	_ = json.Unmarshal(d.Payload, &ev)
	respondError(req, CodeForbidden, "the agent refused",
		ErrorBody{Error: "refused", Message: ev.Refusal, Extra: map[string]any{"refusal": ev.Refusal, "run_id": runID, "attempt": ev.Attempt}}, runID)
}

// respondDeadLetter sends a dead letter as an error: the canonical
// validation error for output_schema_validation_failed, the upstream's code
// for upstream_error, 409 for a run that cannot take the attempt, 500
// otherwise.
func respondDeadLetter(req micro.Request, d handlers.Decision, runID string, end streamEnd) {
	var ev contract.FailedEvent
	_ = json.Unmarshal(d.Payload, &ev)
	code := CodeInternal
	switch ev.Error.Type {
	case contract.ErrRunAlreadyCompleted, contract.ErrAttemptsExhausted:
		code = CodeConflict
	case contract.ErrUpstreamError:
		if KnownCode(end.code) {
			code = end.code
		}
	}
	extra := map[string]any{"run_id": runID, "attempt": ev.Attempt, "type": ev.Error.Type}
	body := ErrorBody{Error: string(ev.Error.Type), Message: ev.Error.Message, Extra: extra}
	if v := ev.Validation; v != nil {
		// The canonical validation error (contract section 4), whose own
		// error member is the stable code.
		b, _ := json.Marshal(v)
		var obj map[string]any
		_ = json.Unmarshal(b, &obj)
		for k, val := range obj {
			if k != "error" {
				extra[k] = val
			}
		}
		body.Error = v.Error
	}
	respondError(req, code, ev.Error.Message, body, runID)
}

// respondError sends an error (section 9) then the terminator.
func respondError(req micro.Request, code int, description string, body ErrorBody, runID string) {
	var opts []micro.RespondOpt
	if runID != "" {
		opts = append(opts, runHeader(runID))
	}
	_ = req.Error(strconv.Itoa(code), headerText(description), body.Encode(), opts...)
	_ = req.Respond(nil)
}

func runHeader(runID string) micro.RespondOpt {
	return micro.WithHeaders(micro.Headers{contract.HeaderRunID: {runID}})
}

// headerText is a header value: one line, bounded, never empty.
func headerText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "..."
	}
	if s == "" {
		s = "error"
	}
	return s
}
