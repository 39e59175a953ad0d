// Package depguard keeps the walls of agentgate's house standing: it reads
// the module's import graph with `go list -deps` and reports every package
// that reaches what its rule forbids (a stage that imports the bus, the
// registry that imports the pipeline, a subject-name package that imports
// NATS), and every package whose doc comment does not say what it must
// not import.
//
// The rules are data (Rules); depguard_test.go applies them to the module
// on every `make test`, and to testdata/violation, a small module that
// breaks them on purpose, to show that they fail.
//
// depguard imports only the standard library, and no package but its own
// tests may import it.
package depguard
