package vllmargs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Result is a command line in goodput's spelling.
type Result struct {
	// Args are the arguments for goodput's flag parser: every flag spelled
	// out in full with dashes, one value per occurrence.
	Args []string
	// Notes say what the translation did that changes nothing measured
	// but that the user should know: flags ignored, flags renamed.
	Notes []string
	// VLLMStyle reports that the command line is written for vLLM: it
	// uses a flag goodput has only for vLLM's sake (Flag.VLLMOnly), a
	// renamed or ignored one, an abbreviation, an underscore spelling or
	// several values after one flag. Callers may treat such command
	// lines as vLLM's where goodput's own differ (vLLM's summary lines,
	// notes that name the line).
	VLLMStyle bool
	// Because names the first spelling that made the line VLLMStyle, for
	// messages ("--host").
	Because string
}

// Error lists every problem of one command line.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%d problems with the command line:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Translate rewrites args, the arguments of `goodput bench` (or of `vllm
// bench serve`) after the command name, into goodput's spelling. fs holds
// goodput's own flags: those not in Flags pass through unchanged, and both
// sets count for abbreviations and suggestions. Arguments that are not
// flags, and everything after "--", pass through. The returned error is an
// *Error listing every unknown, ambiguous, misused and refused flag; the
// Result is then incomplete.
func Translate(args []string, fs *pflag.FlagSet) (Result, error) {
	t := translator{fs: fs, names: knownNames(fs)}
	args, dotted, err := undot(args)
	if err != nil {
		return t.out, &Error{Problems: []string{err.Error()}}
	}
	if dotted {
		t.vllmStyle("a dotted JSON argument")
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			t.out.Args = append(t.out.Args, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "--") {
			t.out.Args = append(t.out.Args, a) // a value, a positional argument or a short flag
			continue
		}
		i = t.flag(args, i)
	}
	t.out.Args = t.kept()
	if len(t.problems) > 0 {
		return t.out, &Error{Problems: t.problems}
	}
	return t.out, nil
}

// translator is the state of one Translate call.
type translator struct {
	fs       *pflag.FlagSet
	names    []string // every known flag name, sorted
	out      Result
	problems []string

	// By flag of Flags that takes several values (see replace): given,
	// the indices in out.Args of the values it holds now; listed, whether
	// one of its occurrences was a list. dropped marks the indices of
	// out.Args a later occurrence replaced.
	given   map[string][]int
	listed  map[string]bool
	dropped map[int]bool
}

// vllmStyle marks the line as written for vLLM, remembering the first
// reason.
func (t *translator) vllmStyle(because string) {
	if !t.out.VLLMStyle {
		t.out.VLLMStyle, t.out.Because = true, because
	}
}

func (t *translator) problem(format string, args ...any) {
	t.problems = append(t.problems, fmt.Sprintf(format, args...))
}

// flag handles the flag at args[i] and returns the index of the last
// argument it consumed.
func (t *translator) flag(args []string, i int) int {
	spelled, val, hasVal := strings.Cut(args[i][2:], "=")
	name := strings.ReplaceAll(spelled, "_", "-")
	if name != spelled {
		t.vllmStyle("--" + spelled)
	}
	canon, ok := t.resolve(name)
	if !ok {
		// Skip the value an unknown flag seems to have, so that it is not
		// reported again as an unexpected argument.
		if !hasVal && i+1 < len(args) && !looksLikeFlag(args[i+1]) {
			i++
		}
		return i
	}
	if canon != name {
		t.vllmStyle("--" + spelled)
	}
	vf, inTable := Lookup(canon)
	gf := t.fs.Lookup(canon)
	arity := vf.Arity
	if !inTable {
		arity = One
		if gf.NoOptDefVal != "" {
			arity = Bool
		}
	}
	var vals []string
	switch arity {
	case Bool:
		if hasVal {
			vals = []string{val}
		}
	case One:
		switch {
		case hasVal:
			vals = []string{val}
		case i+1 < len(args):
			i++
			vals = []string{args[i]}
		default:
			t.problem("--%s: needs a value", canon)
			return i
		}
	case Many:
		if hasVal {
			// As argparse reads --flag=v: that one value, and the
			// arguments after it are none of the flag's.
			vals = []string{val}
			break
		}
		for i+1 < len(args) && !looksLikeFlag(args[i+1]) {
			i++
			vals = append(vals, args[i])
		}
		if len(vals) > 1 {
			t.vllmStyle("--" + canon + " with several values")
		}
	}
	if !inTable {
		t.emit(canon, arity, vals)
		return i
	}
	if vf.VLLMOnly {
		t.vllmStyle("--" + canon)
	}
	if vf.VLLMValue != nil {
		for _, v := range vals {
			if vf.VLLMValue(v) {
				t.vllmStyle("--" + canon + " " + v)
			}
		}
	}
	if vf.Refuse != nil {
		for _, v := range vals {
			if why := vf.Refuse(v); why != "" {
				t.problem("--%s %s: refused: %s", canon, v, why)
				return i
			}
		}
	}
	switch vf.Handling {
	case Native:
		if gf == nil {
			t.problem("--%s: goodput has no such flag here", canon)
			return i
		}
		from := len(t.out.Args)
		t.emit(canon, arity, vals)
		if arity == Many {
			t.replace(canon, !hasVal, from)
		}
	case Renamed:
		t.vllmStyle("--" + canon)
		for k, v := range vals {
			if vf.Convert == nil {
				continue
			}
			c, err := vf.Convert(v)
			if err != nil {
				t.problem("--%s: %v", canon, err)
				return i
			}
			vals[k] = c
		}
		to := t.fs.Lookup(vf.To)
		if to == nil {
			t.problem("--%s: goodput has no --%s here", canon, vf.To)
			return i
		}
		toArity := One
		if to.NoOptDefVal != "" {
			toArity = Bool
		}
		t.emit(vf.To, toArity, vals)
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("--%s is goodput's --%s", canon, vf.To))
	case Ignored:
		t.vllmStyle("--" + canon)
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("--%s %s", canon, vf.Goodput))
	case Refused:
		if vf.Allow != nil && vf.Allow(vals) {
			return i
		}
		given := "--" + canon
		if len(vals) > 0 {
			given += " " + strings.Join(vals, " ")
		}
		t.problem("%s: %s", given, vf.Goodput)
	}
	return i
}

// emit appends one goodput flag occurrence per value.
func (t *translator) emit(name string, arity Arity, vals []string) {
	if arity == Bool && len(vals) == 0 {
		t.out.Args = append(t.out.Args, "--"+name)
		return
	}
	for _, v := range vals {
		t.out.Args = append(t.out.Args, "--"+name+"="+v)
	}
}

// replace settles the values of a flag of several values that one
// occurrence emitted from out.Args[from] on. argparse stores the last
// occurrence of an nargs flag, dropping the values given before: so does
// an occurrence written as a list, as argparse reads one (--goodput
// ttft:500 tpot:50, or a lone value after a space), with a note naming
// what it dropped. An occurrence written --flag=value, goodput's spelling
// of one value, adds it to the others, as goodput's repeatable flags do
// (with a note where vLLM would have dropped a list): Translate's own
// Args are written so, and translate to themselves. --header adds up
// however written, with a note where vLLM would send the last list alone.
func (t *translator) replace(name string, list bool, from int) {
	if t.given == nil {
		t.given, t.dropped, t.listed = map[string][]int{}, map[int]bool{}, map[string]bool{}
	}
	prev := t.given[name]
	if list {
		defer func() { t.listed[name] = true }()
	}
	if name == "header" {
		// Headers add up however they are written: a line that names
		// two means both, and one dropped (an API key) would fail every
		// request. vLLM keeps the last list alone, which the note says.
		if len(prev) > 0 && (list || t.listed[name]) {
			t.out.Notes = append(t.out.Notes, fmt.Sprintf("--header given again: the headers of every occurrence are sent (%s before this one), where vLLM sends the last occurrence's alone",
				plural(len(prev), "header")))
		}
		for k := from; k < len(t.out.Args); k++ {
			prev = append(prev, k)
		}
		t.given[name] = prev
		return
	}
	switch {
	case list && len(prev) > 0:
		for _, k := range prev {
			t.dropped[k] = true
		}
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("%s: replaced by a later --%s, as vLLM keeps the last occurrence only; give every value after one --%s to keep them all",
			t.shown(name, prev), name, name))
		prev = nil
	case !list && len(prev) > 0 && t.listed[name]:
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("%s: kept, since a later --%s=… adds its one value, as goodput's flags do; vLLM would keep the last occurrence only",
			t.shown(name, prev), name))
	}
	for k := from; k < len(t.out.Args); k++ {
		prev = append(prev, k)
	}
	t.given[name] = prev
}

// shown writes the flag name with the values at indices of out.Args, as a
// note names them: "--goodput ttft:500 tpot:50".
func (t *translator) shown(name string, indices []int) string {
	s := "--" + name
	for _, k := range indices {
		_, v, _ := strings.Cut(t.out.Args[k], "=")
		s += " " + v
	}
	return s
}

// kept returns out.Args without the values a later occurrence replaced.
func (t *translator) kept() []string {
	if len(t.dropped) == 0 {
		return t.out.Args
	}
	var args []string
	for k, a := range t.out.Args {
		if !t.dropped[k] {
			args = append(args, a)
		}
	}
	return args
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// resolve finds the flag name stands for: itself, or the one known flag it
// abbreviates, as argparse allows. It reports a problem and false when
// there is none or more than one.
func (t *translator) resolve(name string) (string, bool) {
	if _, ok := Lookup(name); ok || t.fs.Lookup(name) != nil {
		return name, true
	}
	var cands []string
	for _, n := range t.names {
		if strings.HasPrefix(n, name) {
			cands = append(cands, n)
		}
	}
	switch {
	case len(cands) == 1 && name != "":
		return cands[0], true
	case len(cands) > 1 && name != "":
		// vLLM's argparse resolves a prefix among vLLM's flags alone: a
		// line written for it keeps its meaning beside goodput's own.
		if v := vllmPrefix(name); v != "" {
			return v, true
		}
		shown := cands
		if len(shown) > 4 {
			shown = shown[:4]
		}
		hint := ""
		if name == "dataset" {
			// benchmark_serving.py's flag of 2024, the ShareGPT file, that
			// scripts still carry.
			hint = " (the --dataset of vLLM's earlier benchmark_serving.py, a ShareGPT file, is --dataset-name sharegpt --dataset-path FILE)"
		}
		t.problem("--%s: ambiguous, it could be --%s%s%s", name, strings.Join(shown, ", --"), more(len(cands)-len(shown)), hint)
	default:
		if s := nearest(name, t.names); s != "" {
			t.problem("--%s: unknown flag (did you mean --%s?)", name, s)
		} else {
			t.problem("--%s: unknown flag", name)
		}
	}
	return "", false
}

// vllmPrefix returns the one flag of Flags that name abbreviates, or "".
func vllmPrefix(name string) string {
	found := ""
	for _, f := range Flags {
		if strings.HasPrefix(f.Name, name) {
			if found != "" {
				return ""
			}
			found = f.Name
		}
	}
	return found
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" or %d more", n)
}

// knownNames returns every flag name of Flags and fs, sorted, without
// duplicates.
func knownNames(fs *pflag.FlagSet) []string {
	seen := map[string]bool{}
	for _, f := range Flags {
		seen[f.Name] = true
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			seen[f.Name] = true
		}
	})
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// looksLikeFlag reports whether a starts another flag rather than being a
// value: it starts with "-" and is not a negative number.
func looksLikeFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	c := a[1]
	return !(c >= '0' && c <= '9' || c == '.')
}
