package contract

// DeadLetterRef is what the dead-letter stream says about the dead letter a
// replay names.
type DeadLetterRef struct {
	// Seq is the dead letter's sequence in the dead-letter stream.
	Seq     uint64
	RunID   string
	Attempt int
}
