package agentproto

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/agentgate/agentgate/schemas"
)

// DefaultDiscoveryWait is how long discovery collects $SRV.INFO replies.
const DefaultDiscoveryWait = 2 * time.Second

// maxDiscoveryReplies bounds the records one discovery reads.
const maxDiscoveryReplies = 10_000

// Instance is one compliant agent instance, as its discovery record says.
type Instance struct {
	// ID is the service id (heartbeats' instance_id).
	ID          string
	Version     string
	Description string
	// Metadata is the service metadata, every key kept.
	Metadata map[string]string
	// PromptSubject is the prompt endpoint's subject, used verbatim.
	PromptSubject string
	// MaxPayload is the prompt endpoint's max_payload in bytes.
	MaxPayload int64
	// AttachmentsOK is the prompt endpoint's attachments_ok.
	AttachmentsOK bool
	// Owner and Name are the identity tokens: metadata.owner, and the 4th
	// token of the prompt subject when it follows the default pattern,
	// else metadata.session.
	Owner, Name string
}

// Agent is metadata.agent.
func (i Instance) Agent() string { return i.Metadata[MetaAgent] }

// Matches reports whether the instance is the upstream u names: its
// instance id, or its agent (metadata.agent or the subject's agent token,
// which may be an abbreviation), owner and name.
func (i Instance) Matches(u schemas.Upstream) bool {
	if u.InstanceID != "" {
		return i.ID == u.InstanceID
	}
	agentOK := i.Agent() == u.Agent
	if toks := strings.Split(i.PromptSubject, "."); len(toks) >= 4 && toks[0] == SubjectRoot && toks[1] == u.Agent {
		agentOK = true
	}
	return agentOK && i.Owner == u.Owner && i.Name == u.Name
}

// instanceOf reads a discovery record. A record of another service, or one
// that is not a compliant agent's, is ErrBadRecord.
func instanceOf(info micro.Info) (Instance, error) {
	if info.Name != ServiceName && info.Name != ServiceNameCompact {
		return Instance{}, fmt.Errorf("%w: service %q", ErrBadRecord, info.Name)
	}
	in := Instance{ID: info.ID, Version: info.Version, Description: info.Description, Metadata: info.Metadata}
	if in.Metadata == nil {
		in.Metadata = map[string]string{}
	}
	if in.Metadata[MetaAgent] == "" || in.Metadata[MetaOwner] == "" {
		return Instance{}, fmt.Errorf("%w: %s has no metadata.agent or metadata.owner", ErrBadRecord, info.ID)
	}
	if v := in.Metadata[MetaProtocolVersion]; majorMinor(v) != ProtocolVersion {
		return Instance{}, fmt.Errorf("%w: %s implements protocol %q, not %s", ErrBadRecord, info.ID, v, ProtocolVersion)
	}
	i := slices.IndexFunc(info.Endpoints, func(e micro.EndpointInfo) bool { return e.Name == PromptEndpoint })
	if i < 0 {
		return Instance{}, fmt.Errorf("%w: %s has no prompt endpoint", ErrBadRecord, info.ID)
	}
	ep := info.Endpoints[i]
	in.PromptSubject = ep.Subject
	size, err := ParseSize(ep.Metadata[MetaMaxPayload])
	if err != nil {
		return Instance{}, fmt.Errorf("%w: %s: %w", ErrBadRecord, info.ID, err)
	}
	in.MaxPayload = size
	in.AttachmentsOK = strings.EqualFold(strings.TrimSpace(ep.Metadata[MetaAttachmentsOK]), "true")
	in.Owner = in.Metadata[MetaOwner]
	if toks := strings.Split(ep.Subject, "."); len(toks) == 4 && toks[0] == SubjectRoot {
		in.Name = toks[3]
	} else {
		in.Name = in.Metadata[MetaSession]
	}
	return in, nil
}

// majorMinor is the MAJOR.MINOR prefix of a version (section 11.1).
func majorMinor(v string) string {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return v
	}
	minor := parts[1]
	if i := strings.IndexAny(minor, "-+"); i >= 0 {
		minor = minor[:i]
	}
	return parts[0] + "." + minor
}

// Discover finds the instances of the upstream agent u, sorted by id. It
// asks every micro service for its info ($SRV.INFO, so that agents
// registered as "Synadia Agents" and as "SynadiaAgents" both answer) and
// keeps the compliant records that match u, collecting replies for wait
// (default DefaultDiscoveryWait) or until ctx is done. None is ErrNotFound.
func Discover(ctx context.Context, nc *nats.Conn, u schemas.Upstream, wait time.Duration) ([]Instance, error) {
	if wait <= 0 {
		wait = DefaultDiscoveryWait
	}
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, fmt.Errorf("agentproto: discovery: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(micro.APIPrefix+".INFO", inbox, nil); err != nil {
		return nil, fmt.Errorf("agentproto: discovery: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var found []Instance
	for range maxDiscoveryReplies {
		msg, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, fmt.Errorf("agentproto: discovery: %w", err)
		}
		var info micro.Info
		if json.Unmarshal(msg.Data, &info) != nil {
			continue
		}
		in, err := instanceOf(info)
		if err != nil || !in.Matches(u) || slices.ContainsFunc(found, func(f Instance) bool { return f.ID == in.ID }) {
			continue
		}
		found = append(found, in)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, describe(u))
	}
	slices.SortFunc(found, func(a, b Instance) int { return strings.Compare(a.ID, b.ID) })
	return found, nil
}

// describe names an upstream for messages.
func describe(u schemas.Upstream) string {
	if u.InstanceID != "" {
		return "instance " + u.InstanceID
	}
	return Subject(u.Agent, u.Owner, u.Name)
}
