package runstate_test

import (
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/runstate"
)

// The stores are the pipeline's ports; runstate itself does not import the
// pipeline, so the check lives here.
var (
	_ handlers.RunStore    = (*runstate.Store)(nil)
	_ handlers.ChunkStore  = (*runstate.Chunks)(nil)
	_ handlers.DeadLetters = (*runstate.DeadLetters)(nil)
)
