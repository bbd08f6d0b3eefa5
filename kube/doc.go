// Package kube builds the Kubernetes manifests of a sharded goodput run: an
// Indexed Job whose pods each run one shard of the same command from an
// agreed start, a merge Job that waits for them on a shared volume and
// writes the merged run and its report, and what they need (the results
// volume, the dataset as a ConfigMap, an in-cluster simulator to test
// against).
//
// The manifests are built from the small structs in api.go rather than from
// k8s.io/api: the generator needs a few dozen fields, and k8s.io/api would
// add about 8 MB (46 %) to the binary and most of its build time. The tests
// decode every manifest strictly into k8s.io/api's types (unknown fields
// fail), which keeps these structs honest.
package kube
