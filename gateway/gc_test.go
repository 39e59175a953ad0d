package gateway_test

import (
	"runtime/debug"
	"testing"

	"github.com/agentgate/agentgate/gateway"
)

func TestSetGCPercent_GOGCWins(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })

	t.Setenv("GOGC", "150")
	if gateway.SetGCPercent(400, false) {
		t.Fatal("the default overrode GOGC")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("target = %d, want 100 (untouched)", got)
	}
	if !gateway.SetGCPercent(300, true) {
		t.Fatal("an explicit flag did not apply")
	}
	if got := debug.SetGCPercent(100); got != 300 {
		t.Fatalf("target = %d, want 300", got)
	}
}
