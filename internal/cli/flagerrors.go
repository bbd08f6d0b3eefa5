package cli

import (
	"fmt"
	"regexp"
	"strings"
)

// badFlagValue matches pflag's error for a value its type cannot parse:
// `invalid argument "V" for "--name" flag: CAUSE` (with "-n, --name" for a
// flag that has a shorthand).
var badFlagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-[^ ,]+, )?(--[^"]+)" flag: (.*)$`)

// plainFlagError rewords pflag's error for an unparsable value in words
// about the flag, not the Go function that failed: `--seed "-5": want a
// whole number, 0 or more` rather than `strconv.ParseUint: parsing "-5":
// invalid syntax`. Other errors pass unchanged.
func plainFlagError(err error) error {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, flag, cause := m[1], m[2], m[3]
	var want string
	switch {
	case strings.HasSuffix(cause, "value out of range"):
		want = "a number in range: this one does not fit"
	case strings.HasPrefix(cause, "strconv.ParseUint"):
		want = "a whole number, 0 or more"
	case strings.HasPrefix(cause, "strconv.ParseInt"):
		want = "a whole number"
	case strings.HasPrefix(cause, "strconv.ParseFloat"):
		want = "a number"
	case strings.HasPrefix(cause, "strconv.ParseBool"):
		want = "true or false"
	case strings.HasPrefix(cause, "time: "):
		want = "a duration with its unit, such as 500ms, 30s or 5m"
	default:
		return err
	}
	return fmt.Errorf("%s %q: want %s", flag, value, want)
}
