package router

import (
	"encoding/json"
	"strconv"
	"strings"

	wmjs "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/jetstream"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"
)

// Unmarshaler turns any JetStream message into a Watermill message and
// never fails: the stock one errors on a repeated header, after which
// watermill-nats' pkg/jetstream dereferences a nil message and crashes the
// process. Here every header keeps its first value in the metadata; headers
// with several values are also kept whole under MetaRepeated, so
// the pipeline can judge them (and a dead letter keep them). The subject,
// stream, stream sequence and delivery count travel under the other Meta*
// keys.
type Unmarshaler struct {
	// progress, when set, records each message for the in-progress
	// middleware.
	progress *progress
}

var _ wmjs.Unmarshaler = Unmarshaler{}

// Unmarshal implements wmjs.Unmarshaler. The error is always nil.
func (u Unmarshaler) Unmarshal(msg jetstream.Msg) (*message.Message, error) {
	hdr := msg.Headers()
	md := make(message.Metadata, len(hdr)+4)
	var repeated map[string][]string
	for k, vs := range hdr {
		if len(vs) == 0 || strings.HasPrefix(k, "_agentgate_") {
			// Our own keys cannot be set from outside.
			continue
		}
		md[k] = vs[0]
		if len(vs) > 1 {
			if repeated == nil {
				repeated = map[string][]string{}
			}
			repeated[k] = vs
		}
	}
	if repeated != nil {
		if b, err := json.Marshal(repeated); err == nil {
			md[MetaRepeated] = string(b)
		}
	}
	md[MetaSubject] = msg.Subject()
	if meta, err := msg.Metadata(); err == nil {
		md[MetaStream] = meta.Stream
		md[MetaSeq] = strconv.FormatUint(meta.Sequence.Stream, 10)
		md[MetaDelivered] = strconv.FormatUint(meta.NumDelivered, 10)
	}
	// The Watermill UUID is only there when a Watermill publisher sent the
	// message; the stream sequence names it otherwise.
	id := hdr.Get("_watermill_message_uuid")
	if id == "" {
		id = "seq-" + md[MetaSeq]
	}
	m := message.NewMessage(id, msg.Data())
	m.Metadata = md
	if u.progress != nil {
		u.progress.track(m, msg)
	}
	return m, nil
}
