package gateway

import (
	"errors"
	"testing"
	"time"

	"github.com/agentgate/agentgate/router"
)

// The processor's deciders are sized from Workers before the router
// applies its own default, so the gateway applies it first: a default
// serve decides as many outputs at once as the router hands over.
func TestConfig_setDefaultsWorkers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		want    int
	}{
		{"default", 0, router.DefaultWorkers()},
		{"given", 5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Workers: tc.workers}
			c.setDefaults()
			if c.Workers != tc.want {
				t.Errorf("Workers = %d, want %d", c.Workers, tc.want)
			}
		})
	}
}

func TestConfig_ValidateDriftBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
		points   int
		ok       bool
	}{
		{"defaults", 0, 0, true},
		{"the least interval", MinDriftInterval, 1, true},
		{"the most points", time.Minute, MaxDriftPoints, true},
		{"interval too short", time.Millisecond, 0, false},
		{"negative interval", -time.Second, 0, false},
		{"too many points", 0, MaxDriftPoints + 1, false},
		{"negative points", 0, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{ConfigDir: "../examples", DriftInterval: tc.interval, DriftPoints: tc.points}
			c.setDefaults()
			err := c.Validate()
			if tc.ok && err != nil {
				t.Errorf("Validate = %v, want nil", err)
			}
			if !tc.ok && !errors.Is(err, ErrBadConfig) {
				t.Errorf("Validate = %v, want ErrBadConfig", err)
			}
		})
	}
}
