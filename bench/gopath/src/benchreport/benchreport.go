// Package benchreport holds what the Go reference programs (golock, gortt) share in how they
// report: the nearest-rank percentile the C++ benchmarks compute, and failing with the
// program's name.
package benchreport

import (
	"fmt"
	"math"
	"os"
)

// Percentile is the nearest-rank p-th percentile of sorted samples, rounded to decimals places.
func Percentile(sorted []float64, p float64, decimals int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	index := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	if index < 0 {
		index = 0
	}
	scale := math.Pow(10, float64(decimals))
	return math.Round(sorted[index]*scale) / scale
}

// Fail prints program: message on standard error and exits 1.
func Fail(program, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, program+": "+format+"\n", args...)
	os.Exit(1)
}
