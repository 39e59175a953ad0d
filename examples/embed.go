// Package examples is the bundled configuration `agentgate serve` and
// `agentgate validate` use when no --config is given: the schemas and
// blueprints of the example agents in this folder, embedded in the binary so
// that it runs from any directory. It imports only the standard library.
package examples

import "embed"

// Config holds schemas/*.schema.json, schemas/*.jtd.json and agents/*.json,
// for schemas.LoadFS.
//
//go:embed schemas/*.schema.json schemas/*.jtd.json agents/*.json
var Config embed.FS
