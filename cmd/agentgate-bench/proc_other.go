//go:build !linux

package main

import (
	"os/exec"
	"time"
)

// setParentDeathSignal is Linux-only; elsewhere stdin closing is what
// stops an orphaned child.
func setParentDeathSignal(*exec.Cmd) {}

// selfCPU is not measured outside Linux.
func selfCPU() time.Duration { return 0 }
