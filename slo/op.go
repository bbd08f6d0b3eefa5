package slo

import "fmt"

// Op is a comparison.
type Op int

// The comparisons an expression may use.
const (
	LE Op = iota // <=
	LT           // <
	GE           // >=
	GT           // >
)

// String returns the operator as written.
func (o Op) String() string {
	switch o {
	case LE:
		return "<="
	case LT:
		return "<"
	case GE:
		return ">="
	case GT:
		return ">"
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// upper reports whether o bounds a value from above (<= or <).
func (o Op) upper() bool { return o == LE || o == LT }

// holds reports whether "a o b" is true.
func holds[T int64 | float64](a T, o Op, b T) bool {
	switch o {
	case LE:
		return a <= b
	case LT:
		return a < b
	case GE:
		return a >= b
	case GT:
		return a > b
	}
	return false
}
