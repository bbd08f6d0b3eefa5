// Package kubetest reads the manifests goodput writes back into the
// Kubernetes API's own types, strictly: a field the API does not have fails
// the test, as it would fail `kubectl apply` with server-side validation.
// Like net/http/httptest it exists for tests; importing k8s.io/api here, not
// in package kube, keeps the API's types out of the goodput binary.
package kubetest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Objects are the decoded manifests of one stream, by kind and name.
type Objects struct {
	Order       []string // "Kind/name" in stream order
	Jobs        map[string]*batchv1.Job
	ConfigMaps  map[string]*corev1.ConfigMap
	Claims      map[string]*corev1.PersistentVolumeClaim
	Deployments map[string]*appsv1.Deployment
	Services    map[string]*corev1.Service
}

// Decode splits a YAML stream into documents and decodes each strictly
// into its kind's API type. It fails the test on any unknown field, kind
// or duplicate, and on names and labels the API would reject.
func Decode(t testing.TB, stream []byte) *Objects {
	t.Helper()
	o := &Objects{
		Jobs: map[string]*batchv1.Job{}, ConfigMaps: map[string]*corev1.ConfigMap{},
		Claims: map[string]*corev1.PersistentVolumeClaim{}, Deployments: map[string]*appsv1.Deployment{},
		Services: map[string]*corev1.Service{},
	}
	for i, doc := range Documents(stream) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			t.Fatalf("document %d: %v\n%s", i+1, err, doc)
		}
		var meta *metav1.ObjectMeta
		var err error
		switch tm.APIVersion + " " + tm.Kind {
		case "batch/v1 Job":
			var v batchv1.Job
			err, meta = yaml.UnmarshalStrict(doc, &v), &v.ObjectMeta
			o.Jobs[v.Name] = &v
			checkLabels(t, "pod template of Job "+v.Name, v.Spec.Template.Labels)
		case "v1 ConfigMap":
			var v corev1.ConfigMap
			err, meta = yaml.UnmarshalStrict(doc, &v), &v.ObjectMeta
			o.ConfigMaps[v.Name] = &v
		case "v1 PersistentVolumeClaim":
			var v corev1.PersistentVolumeClaim
			err, meta = yaml.UnmarshalStrict(doc, &v), &v.ObjectMeta
			o.Claims[v.Name] = &v
		case "apps/v1 Deployment":
			var v appsv1.Deployment
			err, meta = yaml.UnmarshalStrict(doc, &v), &v.ObjectMeta
			o.Deployments[v.Name] = &v
			checkLabels(t, "pod template of Deployment "+v.Name, v.Spec.Template.Labels)
		case "v1 Service":
			var v corev1.Service
			err, meta = yaml.UnmarshalStrict(doc, &v), &v.ObjectMeta
			o.Services[v.Name] = &v
		default:
			t.Fatalf("document %d: unexpected %s %s", i+1, tm.APIVersion, tm.Kind)
		}
		if err != nil {
			t.Fatalf("document %d (%s): strict decoding: %v\n%s", i+1, tm.Kind, err, doc)
		}
		key := tm.Kind + "/" + meta.Name
		for _, k := range o.Order {
			if k == key {
				t.Errorf("%s twice", key)
			}
		}
		o.Order = append(o.Order, key)
		if errs := content.IsDNS1123Subdomain(meta.Name); len(errs) > 0 {
			t.Errorf("%s: name: %v", key, errs)
		}
		checkLabels(t, key, meta.Labels)
	}
	return o
}

func checkLabels(t testing.TB, where string, labels map[string]string) {
	t.Helper()
	for k, v := range labels {
		if errs := append(content.IsLabelKey(k), content.IsLabelValue(v)...); len(errs) > 0 {
			t.Errorf("%s: label %s=%s: %v", where, k, v, errs)
		}
	}
}

// Documents splits a YAML stream at its "---" lines, dropping documents
// that hold only comments.
func Documents(stream []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(stream), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Refs returns the $(NAME) references Kubernetes expands in args; $$(…)
// is its escape for a literal $(…), no reference.
func Refs(args []string) []string {
	var out []string
	for _, a := range args {
		Expand(a, func(name string) (string, bool) {
			out = append(out, name)
			return "", false
		})
	}
	return out
}

// Expand reads arg as Kubernetes reads a container's command and args
// (the API reference of Container.args): a reference $(NAME) becomes
// NAME's value when lookup has one and is kept as written when not; $$
// becomes $, so $$(NAME) is the literal $(NAME); any other $ is itself.
// A reference runs to the first ')'; a "$(" without one is kept.
func Expand(arg string, lookup func(name string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		if arg[i] != '$' || i+1 == len(arg) {
			b.WriteByte(arg[i])
			continue
		}
		switch arg[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(arg[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := arg[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += end + 2
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// CheckPod checks what every goodput pod needs: one container whose
// $(…) references are all defined in its environment, whose mounts name
// the pod's volumes, and no credential written as a value.
func CheckPod(t testing.TB, where string, spec corev1.PodSpec) {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("%s: %d containers", where, len(spec.Containers))
	}
	c := spec.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if e.Value != "" && (strings.Contains(strings.ToLower(e.Name), "key") || strings.Contains(strings.ToLower(e.Name), "token")) {
			t.Errorf("%s: %s is written as a value", where, e.Name)
		}
	}
	for _, r := range Refs(c.Args) {
		if _, ok := env[r]; !ok {
			t.Errorf("%s: args name $(%s), which the container's environment does not define", where, r)
		}
	}
	vols := map[string]bool{}
	for _, v := range spec.Volumes {
		vols[v.Name] = true
	}
	for _, m := range c.VolumeMounts {
		if !vols[m.Name] {
			t.Errorf("%s: mount %s names no volume", where, m.Name)
		}
	}
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: may run as root", where)
	}
}

// String is a short description of o for failure messages.
func (o *Objects) String() string { return fmt.Sprint(o.Order) }
