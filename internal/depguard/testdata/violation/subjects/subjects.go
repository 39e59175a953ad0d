// Package subjects names subjects; it imports only the standard library.
package subjects

// Valid is a subject.
const Valid = "agent.output.valid"
