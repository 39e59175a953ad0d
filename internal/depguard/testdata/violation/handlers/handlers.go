// Package handlers is a stage that breaks its wall on purpose: it must
// never import the bus, and imports subject names.
package handlers

import "example.com/violation/subjects"

// Subject is where it would publish.
var Subject = subjects.Valid
