package kube

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"
)

// kustomization is the part of kustomize's Kustomization a base needs.
type kustomization struct {
	APIVersion         string         `yaml:"apiVersion"`
	Kind               string         `yaml:"kind"`
	Resources          []string       `yaml:"resources"`
	ConfigMapGenerator []configMapGen `yaml:"configMapGenerator"`
}

type configMapGen struct {
	Name     string     `yaml:"name"`
	Literals []string   `yaml:"literals"`
	Options  genOptions `yaml:"options"`
}

type genOptions struct {
	Labels map[string]string `yaml:"labels"`
}

// KustomizeFiles returns the files of a Kustomize base of the run, by
// name: one per kind of object and kustomization.yaml, whose
// configMapGenerator makes the run's ConfigMap (NAME-run), so that an
// overlay sets the start and the run's directory with
//
//	kustomize edit add configmap NAME-run --behavior=merge \
//	    --from-literal=start-at=2026-11-29T10:00:00Z --from-literal=run=NAME-2
//
// Objects keep their names (the in-cluster simulator is found by its
// Service's name, which a name suffix would change). comment heads every
// file. The files are what Manifests returns for o,
// less the run's ConfigMap.
func KustomizeFiles(o Options, comment string) (map[string][]byte, error) {
	objs, err := Manifests(o)
	if err != nil {
		return nil, err
	}
	groups := map[string][]Object{}
	var order []string
	for _, obj := range objs[1:] { // objs[0] is the run's ConfigMap, generated instead
		name := fileFor(obj)
		if groups[name] == nil {
			order = append(order, name)
		}
		groups[name] = append(groups[name], obj)
	}
	files := map[string][]byte{}
	for _, name := range order {
		var buf bytes.Buffer
		if err := Write(&buf, comment, groups[name]); err != nil {
			return nil, err
		}
		files[name] = buf.Bytes()
	}
	run := objs[0]
	k := kustomization{
		APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Resources: order,
		ConfigMapGenerator: []configMapGen{{
			Name:     run.Metadata.Name,
			Literals: []string{KeyStartAt + "=" + run.Data[KeyStartAt], KeyRun + "=" + run.Data[KeyRun]},
			Options:  genOptions{Labels: run.Metadata.Labels},
		}},
	}
	var buf bytes.Buffer
	comment += fmt.Sprintf(`To run it (again) from an overlay, give the run its start and a directory of its own, and
remove the last run's Jobs, which cannot be changed (their records stay on the volume):
  kustomize edit add configmap %s --behavior=merge \
      --from-literal=%s=2026-11-29T10:00:00Z --from-literal=%s=%s-2
  kubectl delete job %s %s --ignore-not-found && kubectl apply -k .
`, run.Metadata.Name, KeyStartAt, KeyRun, o.Name, o.Name, o.MergeJobName())
	for _, l := range bytes.Split(bytes.TrimRight([]byte(comment), "\n"), []byte("\n")) {
		buf.WriteString(string(bytes.TrimRight(append([]byte("# "), l...), " ")) + "\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(k); err != nil {
		return nil, err
	}
	enc.Close()
	files["kustomization.yaml"] = buf.Bytes()
	return files, nil
}

// fileFor names the base's file of an object.
func fileFor(obj Object) string {
	switch obj.Metadata.Labels["app.kubernetes.io/component"] {
	case CompShard:
		return "shards.yaml"
	case CompMerge:
		return "merge.yaml"
	case CompSim:
		return "sim.yaml"
	case CompResults:
		return "results.yaml"
	case CompDataset:
		return "dataset.yaml"
	}
	return obj.Kind + ".yaml"
}

// WriteKustomize writes the base's files into dir, creating it.
func WriteKustomize(dir string, o Options, comment string) ([]string, error) {
	files, err := KustomizeFiles(o, comment)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, name := range sortedKeys(files) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
