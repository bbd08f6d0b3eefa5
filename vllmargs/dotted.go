package vllmargs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// undot rewrites vLLM's dotted JSON arguments into one JSON argument per
// flag, as vLLM's argument parser does: --extra-body.a.b 1 and
// --extra-body.c=x become --extra-body={"a":{"b":1},"c":"x"}, placed after
// the other arguments so that they win over the flag given whole, as the
// last occurrence does. A value is JSON where it parses as JSON, else a
// string; a key ending in "+" makes a list of the value's comma-separated
// parts. Underscores become dashes in the flag's name, never in the keys.
// It reports whether any argument was dotted. Arguments after "--" are
// left alone.
func undot(args []string) (out []string, dotted bool, err error) {
	merged := map[string]map[string]any{}
	var order []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !strings.Contains(name, ".") {
			out = append(out, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, true, fmt.Errorf("--%s: needs a value", name)
			}
			i++
			val = args[i]
		}
		root, path, _ := strings.Cut(name, ".")
		root = strings.ReplaceAll(root, "_", "-")
		keys := strings.Split(path, ".")
		var v any
		if last := keys[len(keys)-1]; strings.HasSuffix(last, "+") {
			keys[len(keys)-1] = strings.TrimSuffix(last, "+")
			parts := strings.Split(val, ",")
			list := make([]any, len(parts))
			for j, p := range parts {
				list[j] = p
			}
			v = list
		} else if err := jsonerr.Unmarshal([]byte(val), &v); errors.As(err, new(*jsonerr.DuplicateKeyError)) {
			return nil, true, fmt.Errorf("--%s: %v", name, err)
		} else if err != nil {
			v = val
		}
		for _, k := range keys {
			if k == "" {
				return nil, true, fmt.Errorf("--%s: an empty key", name)
			}
		}
		if merged[root] == nil {
			merged[root] = map[string]any{}
			order = append(order, root)
		}
		if err := setPath(merged[root], keys, v); err != nil {
			return nil, true, fmt.Errorf("--%s: %v", name, err)
		}
		dotted = true
	}
	if !dotted {
		return args, false, nil
	}
	// Before "--", if there is one.
	tail := []string(nil)
	for i, a := range out {
		if a == "--" {
			tail = append(tail, out[i:]...)
			out = out[:i]
			break
		}
	}
	for _, root := range order {
		b, err := json.Marshal(merged[root])
		if err != nil {
			return nil, true, fmt.Errorf("--%s: %v", root, err)
		}
		out = append(out, "--"+root+"="+string(b))
	}
	return append(out, tail...), true, nil
}

// setPath sets m[keys[0]]…[keys[n-1]] to v, making the objects between; a
// list set twice grows, as vLLM's parser merges lists.
func setPath(m map[string]any, keys []string, v any) error {
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			if _, set := m[k]; set {
				return fmt.Errorf("%s is set to a value and used as an object", k)
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	k := keys[len(keys)-1]
	if old, ok := m[k].([]any); ok {
		if more, ok := v.([]any); ok {
			m[k] = append(old, more...)
			return nil
		}
	}
	m[k] = v
	return nil
}
