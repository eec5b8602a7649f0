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

// ServerCost is what another process (the etcd under measurement) has spent so far: CPU time
// in microseconds from /proc/PID/stat, and read and write calls from /proc/PID/io, read at the
// same moments as the C++ benchmarks read them.
type ServerCost struct {
	CPUMicros int64 `json:"cpu_us"`
	Reads     int64 `json:"reads"`
	Writes    int64 `json:"writes"`
}

// ServerCostOf reads process pid's ServerCost.
func ServerCostOf(pid int) ServerCost {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		Fail("benchreport", "reading the server's stat: %v", err)
	}
	// After the parenthesised name: state is field 3 of stat(5), utime 14 and stime 15.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	// Both in USER_HZ ticks, 100 per second on x86 and ARM Linux (sysconf needs cgo).
	cost := ServerCost{CPUMicros: (utime + stime) * 10000}
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		Fail("benchreport", "reading the server's io: %v", err)
	}
	for _, line := range strings.Split(string(io), "\n") {
		if fields := strings.Fields(line); len(fields) == 2 {
			count, _ := strconv.ParseInt(fields[1], 10, 64)
			switch fields[0] {
			case "syscr:":
				cost.Reads = count
			case "syscw:":
				cost.Writes = count
			}
		}
	}
	return cost
}
