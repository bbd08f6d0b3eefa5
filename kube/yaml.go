package kube

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Write writes objs as one YAML stream for `kubectl apply -f -`, each
// object its own document, after comment, a block of '#' lines (nothing
// when empty).
func Write(w io.Writer, comment string, objs []Object) error {
	var buf bytes.Buffer
	if comment != "" {
		for _, l := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
			buf.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
	}
	for i, obj := range objs {
		if i > 0 || comment != "" {
			buf.WriteString("---\n")
		}
		b, err := Marshal(obj)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Marshal returns one object as YAML.
func Marshal(obj Object) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Metadata.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
