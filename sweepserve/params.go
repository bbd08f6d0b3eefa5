package sweepserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// jsonError names the file, and the line and column of a syntax error in
// b, the file's bytes.
func jsonError(path string, b []byte, err error) error {
	if line, col, ok := jsonerr.Position(b, err); ok {
		return fmt.Errorf("%s:%d:%d: %v", path, line, col, err)
	}
	return fmt.Errorf("%s: %w", path, jsonerr.Plain(err))
}

// nameKey names a parameter combination in a file of them; it is no
// parameter of the command.
const nameKey = "_benchmark_name"

// Item is one combination of parameters: command-line options without
// their dashes (max_num_seqs or max-num-seqs), with their values in the
// file's order. The zero Item changes nothing.
type Item struct {
	Params Object
}

// Empty reports whether the item sets nothing and has no name.
func (it Item) Empty() bool { return len(it.Params) == 0 }

// Label names the item: its _benchmark_name, else its parameters as
// key=value joined by "-", as vLLM names its result folders.
func (it Item) Label() string {
	if v, ok := it.Params.Get(nameKey); ok {
		return valueText(v)
	}
	var parts []string
	for _, f := range it.Params {
		parts = append(parts, f.Key+"="+valueText(f.Value))
	}
	return strings.Join(parts, "-")
}

// Text is the item's parameters as "key=value, …", for messages.
func (it Item) Text() string {
	var parts []string
	for _, f := range it.Params {
		if f.Key != nameKey {
			parts = append(parts, f.Key+"="+valueText(f.Value))
		}
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

// With returns a copy of the item with key set to the JSON value v.
func (it Item) With(key string, v json.RawMessage) Item {
	p := append(Object(nil), it.Params...)
	p.Set(key, v)
	return Item{Params: p}
}

// valueText is a value as Python's str() writes it, which is what vLLM
// puts on a command line and in a folder name: strings bare, true and
// false capitalised, numbers, objects and lists as JSON.
func valueText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	case string(v) == "true":
		return "True"
	case string(v) == "false":
		return "False"
	}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		return b.String()
	}
	return string(v)
}

// ReadParams reads a file of parameter combinations: a JSON list of
// objects, or an object of named objects ({"name": {…}, …}, each named by
// its key). Names must be unique, and every value a string, number, bool,
// list or object (null says nothing a command line can).
func ReadParams(path string) ([]Item, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var items []Item
	switch t := bytes.TrimSpace(b); {
	case len(t) > 0 && t[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, jsonError(path, b, err)
		}
		for i, raw := range list {
			var o Object
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s: item %d: want an object of parameters, as {\"max_num_seqs\": 64}", path, i+1)
			}
			items = append(items, Item{Params: o})
		}
	case len(t) > 0 && t[0] == '{':
		var named Object
		if err := json.Unmarshal(b, &named); err != nil {
			return nil, jsonError(path, b, err)
		}
		for _, f := range named {
			var o Object
			if err := json.Unmarshal(f.Value, &o); err != nil {
				return nil, fmt.Errorf("%s: %q: want an object of parameters, as {\"max_num_seqs\": 64}", path, f.Key)
			}
			name, _ := json.Marshal(f.Key)
			items = append(items, Item{Params: append(Object{{nameKey, name}}, o...)})
		}
	default:
		return nil, fmt.Errorf("%s: want a JSON list of parameter objects, or an object of named ones", path)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: holds no parameter combination", path)
	}
	seen := map[string]int{}
	for i, it := range items {
		for _, f := range it.Params {
			if string(bytes.TrimSpace(f.Value)) == "null" {
				return nil, fmt.Errorf("%s: item %d: %s is null: give it a value, or leave it out", path, i+1, f.Key)
			}
		}
		if v, ok := it.Params.Get(nameKey); ok {
			name := valueText(v)
			if j, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s: items %d and %d are both named %q: names must be unique", path, j, i+1, name)
			}
			seen[name] = i + 1
		}
	}
	return items, nil
}

// Bools says how a command takes a boolean option.
type Bools int

const (
	// Negated writes true as --key and false as --no-key, as vLLM's
	// BooleanOptionalAction flags take them (vllm serve); a dotted key
	// (a nested config field) as --key=true or --key=false.
	Negated Bools = iota
	// Valued writes true as --key and false as --key=false, as goodput's
	// flags take them.
	Valued
)

// Apply returns cmd with the item's parameters set: an option the command
// already has gets the new value in its place (--key value, --key=value,
// or a boolean --key or --no-key), any other is appended. Keys match with
// - and _ taken alike, except after a dot (a nested config field).
func (it Item) Apply(cmd []string, bools Bools) []string {
	out := append([]string(nil), cmd...)
	for _, f := range it.Params {
		if f.Key == nameKey {
			continue
		}
		out = setOption(out, f.Key, f.Value, bools)
	}
	return out
}

func setOption(cmd []string, key string, v json.RawMessage, bools Bools) []string {
	flag := "--" + dashed(key)
	val := strings.TrimSpace(string(v))
	isBool := val == "true" || val == "false"
	var repl []string
	switch {
	case !isBool:
		repl = []string{flag, valueText(v)}
	case strings.Contains(key, "."):
		repl = []string{flag + "=" + val}
	case val == "true":
		repl = []string{flag}
	case bools == Valued:
		repl = []string{flag + "=false"}
	default:
		repl = []string{"--no-" + dashed(key)}
	}
	for i, a := range cmd {
		name, _, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(name, "--") || !sameKey(name[2:], key, isBool) {
			continue
		}
		rest := cmd[i+1:]
		// An option that took its value as the next word gives both up;
		// a boolean one, or one written --key=value, only itself.
		if !hasValue && !isBool && !strings.HasPrefix(name, "--no-") && len(rest) > 0 {
			rest = rest[1:]
		}
		if hasValue && !isBool {
			repl = []string{flag + "=" + valueText(v)}
		}
		return append(append(append([]string(nil), cmd[:i]...), repl...), rest...)
	}
	return append(cmd, repl...)
}

// sameKey reports whether an option's name (without its dashes) is key,
// or, for a boolean, its negation.
func sameKey(name, key string, isBool bool) bool {
	if isBool {
		if n, ok := strings.CutPrefix(name, "no-"); ok && dashed(n) == dashed(key) {
			return true
		}
	}
	return dashed(name) == dashed(key)
}

// dashed writes a key with dashes for underscores, up to its first dot.
func dashed(key string) string {
	head, tail, dot := strings.Cut(key, ".")
	head = strings.ReplaceAll(head, "_", "-")
	if dot {
		return head + "." + tail
	}
	return head
}

// Link ties a server parameter to a benchmark parameter: only
// combinations in which both are set, to equal values, run (vLLM's
// --link-vars, as max_num_seqs=max_concurrency).
type Link struct{ Serve, Bench string }

// ParseLinks reads "serve_key=bench_key,…".
func ParseLinks(s string) ([]Link, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var links []Link
	for _, part := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(part, "=")
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if !ok || a == "" || b == "" || strings.Contains(b, "=") {
			return nil, fmt.Errorf("%q: want serve_key=bench_key, as max_num_seqs=max_concurrency", part)
		}
		links = append(links, Link{a, b})
	}
	return links, nil
}

// param finds key in the item, with - and _ taken alike.
func (it Item) param(key string) (json.RawMessage, bool) {
	for _, f := range it.Params {
		if f.Key != nameKey && dashed(f.Key) == dashed(key) {
			return f.Value, true
		}
	}
	return nil, false
}

// linked reports whether serve and bench agree on every link.
func linked(serve, bench Item, links []Link) bool {
	for _, l := range links {
		a, ok1 := serve.param(l.Serve)
		b, ok2 := bench.param(l.Bench)
		if !ok1 || !ok2 || !sameValue(a, b) {
			return false
		}
	}
	return true
}

// sameValue compares two JSON values as values: 32 and 32.0 are equal.
func sameValue(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
