package human

// IsPlainDecimal reports whether s is a number as people type a percentile,
// a fraction or a rate: digits with at most one decimal point and at least
// one digit ("20", "0.2", ".5", "5."), nothing else, not even spaces.
// Parsers call it before strconv.ParseFloat, which alone would also take
// signs, exponents, "inf", "nan", "0x1p3" and "1_0", none of which a person
// means there.
func IsPlainDecimal(s string) bool {
	digits, dots := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}
