package main

import (
	"os/exec"
	"syscall"
	"time"
)

// setParentDeathSignal makes the kernel kill the child if the bench dies
// without stopping it.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// selfCPU is the CPU time the bench process (embedded server, load
// generator, collector) has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
