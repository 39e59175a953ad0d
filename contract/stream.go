package contract

import "time"

// StreamState is a streamed attempt's entry in the chunk bucket (section 8):
// the chunks received so far, kept so that a restart loses none.
type StreamState struct {
	RunID   string `json:"run_id"`
	AgentID string `json:"agent_id"`
	// Attempt is the chunks' Attempt header, or the run's next expected
	// attempt when the first chunk came without one.
	Attempt int `json:"attempt"`
	// Subject is the subject the assembled output counts as published to
	// (the agent's raw subject), and Stream the stream that holds the
	// chunks (the sequences below are that stream's).
	Subject string `json:"subject,omitempty"`
	Stream  string `json:"stream,omitempty"`
	// Headers are the first chunk's headers, less the chunk headers.
	Headers map[string][]string `json:"headers"`
	// Chunks are kept as bytes (base64 in JSON): a chunk may end in the
	// middle of a UTF-8 sequence.
	Chunks map[int][]byte `json:"chunks"`
	// Final is the Chunk-Seq of the final chunk, -1 until it came, and
	// FinalSeq its sequence in Stream.
	Final    int    `json:"final"`
	FinalSeq uint64 `json:"final_seq,omitempty"`
	// LastSeq is the sequence of the latest chunk added.
	LastSeq uint64 `json:"last_seq,omitempty"`
	// StopSeq, once set, says the attempt is being stopped early and names
	// its input (the chunk whose prefix was judged), so that the stop is
	// decided, and republished, the same way whichever chunk comes next.
	StopSeq uint64 `json:"stop_seq,omitempty"`
	// Done is set once the attempt has an outcome (assembled, stopped early
	// or expired): later chunks are ignored.
	Done      bool      `json:"done"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Complete reports whether every chunk up to the final one is there.
func (s *StreamState) Complete() bool {
	if s.Final < 0 {
		return false
	}
	for i := 0; i <= s.Final; i++ {
		if _, ok := s.Chunks[i]; !ok {
			return false
		}
	}
	return true
}

// Prefix is the chunks from 0 on, up to the first missing one (and no
// further than the final one).
func (s *StreamState) Prefix() []byte {
	var b []byte
	for i := 0; s.Final < 0 || i <= s.Final; i++ {
		c, ok := s.Chunks[i]
		if !ok {
			break
		}
		b = append(b, c...)
	}
	return b
}
