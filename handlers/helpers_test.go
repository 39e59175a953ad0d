package handlers_test

import "github.com/agentgate/agentgate/handlers/normalize"

// The helpers the pipeline's tests share with the stages' are in
// internal/pipelinetest.

var stripAndCoerce = normalize.Options{ExtraFields: "strip", Coerce: true}
