package autoscale

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// manifests reads every YAML document of a file in docs/autoscaling.
func manifests(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "autoscaling", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, m)
	}
}

// dig follows a path of keys and list indexes through decoded YAML.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestAutoscalingManifests: the documented KEDA ScaledObject and HPA read
// goodput_desired_replicas so that the replica count follows it (an
// average-value target of 1), and the watcher's Deployment runs
// watch --advise with the exporter on the port Prometheus scrapes.
func TestAutoscalingManifests(t *testing.T) {
	keda := manifests(t, "keda-scaledobject.yaml")
	if len(keda) != 1 || keda[0]["kind"] != "ScaledObject" || keda[0]["apiVersion"] != "keda.sh/v1alpha1" {
		t.Fatalf("keda: %v", keda)
	}
	trig := dig(keda[0], "spec", "triggers", 0)
	if dig(trig, "type") != "prometheus" || !strings.Contains(dig(trig, "metadata", "query").(string), DesiredReplicas) || dig(trig, "metadata", "threshold") != "1" {
		t.Errorf("keda trigger: %v", trig)
	}

	hpa := manifests(t, "hpa-external.yaml")
	if len(hpa) != 1 || hpa[0]["kind"] != "HorizontalPodAutoscaler" || hpa[0]["apiVersion"] != "autoscaling/v2" {
		t.Fatalf("hpa: %v", hpa)
	}
	m := dig(hpa[0], "spec", "metrics", 0)
	if dig(m, "type") != "External" || dig(m, "external", "metric", "name") != DesiredReplicas ||
		dig(m, "external", "target", "type") != "AverageValue" || dig(m, "external", "target", "averageValue") != "1" {
		t.Errorf("hpa metric: %v", m)
	}

	adapter := manifests(t, "prometheus-adapter-values.yaml")
	if q, _ := dig(adapter[0], "rules", "external", 0, "seriesQuery").(string); !strings.Contains(q, DesiredReplicas) {
		t.Errorf("adapter rule: %v", dig(adapter[0], "rules"))
	}

	docs := manifests(t, "goodput-advise.yaml")
	var args []string
	port := 0
	for _, d := range docs {
		if d["kind"] != "Deployment" {
			continue
		}
		c := dig(d, "spec", "template", "spec", "containers", 0)
		for _, a := range dig(c, "args").([]any) {
			args = append(args, a.(string))
		}
		port, _ = dig(c, "ports", 0, "containerPort").(int)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"watch", "--advise", "--from=/etc/goodput/sweep.json", "--listen=0.0.0.0:9465", "dns+http://vllm-headless:8000"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the watcher's args %q lack %q", joined, want)
		}
	}
	if port != 9465 {
		t.Errorf("container port %d, want 9465", port)
	}
	for _, arg := range args {
		if strings.HasPrefix(arg, DNSScheme) {
			if err := CheckTarget(arg + "/metrics"); err != nil {
				t.Errorf("target %q: %v", arg, err)
			}
		}
	}
}
