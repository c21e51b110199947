package httpmw

import (
	"math"
	"time"
)

// Scaled is n units as a duration, pinned to the largest or smallest duration where n units
// overflow, so that validation refuses it rather than a wrapped value.
func Scaled(n int64, unit time.Duration) time.Duration {
	switch {
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
	case n < math.MinInt64/int64(unit):
		return math.MinInt64
	}
	return time.Duration(n) * unit
}
