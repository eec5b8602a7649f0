// SPDX-License-Identifier: Apache-2.0

// Package benchreport holds what the Go reference programs (golock, gortt, golease) share in
// how they measure and report: the process's CPU time and resident memory as the C++ benchmarks
// read them, and failing with the program's name. Percentiles are the C++ side's: the programs
// print every sample, for it to merge them with the other slices of a run.
package benchreport

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Fail prints program: message on standard error and exits 1.
func Fail(program, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, program+": "+format+"\n", args...)
	os.Exit(1)
}

// ProcessCPUMicros is the CPU time (user + system, every thread) this process has used so far.
func ProcessCPUMicros() int64 {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return usage.Utime.Sec*1e6 + usage.Utime.Usec + usage.Stime.Sec*1e6 + usage.Stime.Usec
}

// ResidentKiB is VmRSS from /proc/self/status: what the kernel holds in memory for the process.
func ResidentKiB() int64 {
	status, err := os.Open("/proc/self/status")
	if err != nil {
		Fail("benchreport", "reading /proc/self/status: %v", err)
	}
	defer status.Close()
	lines := bufio.NewScanner(status)
	for lines.Scan() {
		if fields := strings.Fields(lines.Text()); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kib
			}
		}
	}
	Fail("benchreport", "no VmRSS in /proc/self/status")
	return 0
}
