package kube

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/goodput-dev/goodput/internal/kubetest"
	"github.com/goodput-dev/goodput/slo"
)

var start = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// base is a 4-shard run against a named server.
func base() Options {
	return Options{
		Name: "bench-a", Namespace: "bench", Image: "ghcr.io/goodput-dev/goodput:v1.2.0", Shards: 4,
		Command:      []string{"bench", "--base-url", "http://vllm:8000", "--request-rate", "40", "--num-prompts", "8000"},
		StartAt:      start,
		MergeArgs:    []string{"--gate", "p99(ttft)<=500ms"},
		MergeTimeout: 20 * time.Minute, BackoffLimitPerIndex: 1,
		Results:   Results{Size: "2Gi"},
		Resources: Size(137),
		Version:   "v1.2.0",
	}
}

func render(t *testing.T, o Options) *kubetest.Objects {
	t.Helper()
	objs, err := Manifests(o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, "a comment\nof two lines", objs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# a comment\n# of two lines\n---\napiVersion: v1\n") {
		t.Errorf("stream begins %q", buf.String()[:60])
	}
	return kubetest.Decode(t, buf.Bytes())
}

// Every manifest decodes strictly into the API's types, and the fields
// that make the run work say what they must.
func TestShardJob(t *testing.T) {
	got := render(t, base())
	want := []string{"ConfigMap/bench-a-run", "PersistentVolumeClaim/bench-a-results", "Job/bench-a", "Job/bench-a-merge"}
	if !slices.Equal(got.Order, want) {
		t.Fatalf("objects %v, want %v", got.Order, want)
	}
	j := got.Jobs["bench-a"]
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != "Indexed" || *s.Completions != 4 || *s.Parallelism != 4 {
		t.Errorf("completion mode %v, completions %v, parallelism %v", s.CompletionMode, s.Completions, s.Parallelism)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 1 || s.PodReplacementPolicy == nil || *s.PodReplacementPolicy != "Failed" {
		t.Errorf("backoff per index %v, replacement %v", s.BackoffLimitPerIndex, s.PodReplacementPolicy)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != "FailIndex" || !slices.Equal(rules[0].OnExitCodes.Values, []int32{2, 3}) ||
		rules[1].Action != "Ignore" || rules[1].OnPodConditions[0].Type != "DisruptionTarget" {
		t.Errorf("pod failure policy %+v", rules)
	}
	pod := j.Spec.Template.Spec
	kubetest.CheckPod(t, "shard pod", pod)
	if pod.RestartPolicy != corev1.RestartPolicyNever || j.Namespace != "bench" {
		t.Errorf("restart %s, namespace %s", pod.RestartPolicy, j.Namespace)
	}
	c := pod.Containers[0]
	// The same command in every pod: the shard comes from the Job's index.
	wantArgs := []string{"bench", "--base-url", "http://vllm:8000", "--request-rate", "40", "--num-prompts", "8000",
		"--shards", "4", "--start-at=$(GOODPUT_START_AT)", "--result-dir", "/results/$(GOODPUT_RUN)"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args %q\nwant %q", c.Args, wantArgs)
	}
	if c.Image != "ghcr.io/goodput-dev/goodput:v1.2.0" || c.Name != "goodput" {
		t.Errorf("container %s image %s", c.Name, c.Image)
	}
	envs := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		envs[e.Name] = e
	}
	if f := envs["NODE_NAME"].ValueFrom; f == nil || f.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("NODE_NAME %+v", envs["NODE_NAME"])
	}
	if r := envs["GOODPUT_START_AT"].ValueFrom; r == nil || r.ConfigMapKeyRef.Name != "bench-a-run" || r.ConfigMapKeyRef.Key != "start-at" {
		t.Errorf("GOODPUT_START_AT %+v", envs["GOODPUT_START_AT"])
	}
	run := got.ConfigMaps["bench-a-run"]
	if run.Data["start-at"] != "2026-11-29T10:00:00Z" || run.Data["run"] != "bench-a" {
		t.Errorf("run ConfigMap %v", run.Data)
	}
	// Requests sized from the streams; memory limited, CPU not.
	if c.Resources.Requests.Cpu().String() != "700m" || c.Resources.Requests.Memory().String() != "192Mi" ||
		c.Resources.Limits.Memory().String() != "384Mi" || !c.Resources.Limits.Cpu().IsZero() {
		t.Errorf("resources %+v", c.Resources)
	}
	// The results claim, shared by every pod.
	claim := got.Claims["bench-a-results"]
	if !slices.Equal(claim.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) ||
		claim.Spec.Resources.Requests.Storage().String() != "2Gi" || claim.Spec.StorageClassName != nil {
		t.Errorf("claim %+v", claim.Spec)
	}
	if v := pod.Volumes[0]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "bench-a-results" || c.VolumeMounts[0].MountPath != "/results" {
		t.Errorf("results volume %+v, mount %+v", v, c.VolumeMounts)
	}
	// The shards keep apart, by labels their own template carries.
	aff := pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(aff) != 1 || aff[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" || !subset(aff[0].PodAffinityTerm.LabelSelector.MatchLabels, j.Spec.Template.Labels) {
		t.Errorf("anti-affinity %+v against template labels %v", aff, j.Spec.Template.Labels)
	}
	if j.Labels["app.kubernetes.io/version"] != "v1.2.0" {
		t.Errorf("labels %v", j.Labels)
	}
	// The merge waits for the four shards in the same directory, and
	// carries the gates.
	m := got.Jobs["bench-a-merge"]
	mp := m.Spec.Template.Spec
	kubetest.CheckPod(t, "merge pod", mp)
	wantMerge := []string{"merge", "/results/$(GOODPUT_RUN)", "--wait", "--shards", "4", "--wait-timeout", "20m0s",
		"--output", "/results/$(GOODPUT_RUN)/merged.jsonl", "--report", "/results/$(GOODPUT_RUN)/report.html", "--gate", "p99(ttft)<=500ms"}
	if !slices.Equal(mp.Containers[0].Args, wantMerge) {
		t.Errorf("merge args %q\nwant %q", mp.Containers[0].Args, wantMerge)
	}
	if *m.Spec.BackoffLimit != 0 || m.Spec.CompletionMode != nil || mp.Volumes[0].PersistentVolumeClaim.ClaimName != "bench-a-results" {
		t.Errorf("merge job %+v", m.Spec)
	}
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

func TestVariants(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*Options)
		check func(t *testing.T, got *kubetest.Objects)
	}{
		// An existing claim is used, not created; a storage class reaches a created one.
		{"existing claim", func(o *Options) { o.Results = Results{Claim: "shared-results"} }, func(t *testing.T, got *kubetest.Objects) {
			if len(got.Claims) != 0 || got.Jobs["bench-a"].Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "shared-results" {
				t.Errorf("objects %v", got)
			}
		}},
		{"storage class", func(o *Options) { o.Results.StorageClass = "nfs" }, func(t *testing.T, got *kubetest.Objects) {
			if sc := got.Claims["bench-a-results"].Spec.StorageClassName; sc == nil || *sc != "nfs" {
				t.Errorf("storage class %v", sc)
			}
		}},
		// Secrets by reference: a name and a key, never a value.
		{"secrets", func(o *Options) {
			o.Secrets = []SecretEnv{{"OPENAI_API_KEY", "openai", "key"}, {"GW_TOKEN", "gateway", "token"}}
			o.Command = append(o.Command, "--header", "X-Gateway-Token=$(GW_TOKEN)")
		}, func(t *testing.T, got *kubetest.Objects) {
			c := got.Jobs["bench-a"].Spec.Template.Spec.Containers[0]
			refs := 0
			for _, e := range c.Env {
				if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil {
					refs++
					if e.Value != "" {
						t.Errorf("%s has a value", e.Name)
					}
				}
			}
			if refs != 2 || c.Env[3].ValueFrom.SecretKeyRef.Name != "openai" || c.Env[4].ValueFrom.SecretKeyRef.Key != "token" {
				t.Errorf("env %+v", c.Env)
			}
		}},
		// Placement: node selector and tolerations on every pod.
		{"placement", func(o *Options) {
			o.NodeSelector = map[string]string{"pool": "loadgen"}
			o.Tolerations = []Toleration{{Key: "dedicated", Operator: "Equal", Value: "loadgen", Effect: "NoSchedule"}}
			o.ServiceAccount = "goodput"
		}, func(t *testing.T, got *kubetest.Objects) {
			for name, j := range got.Jobs {
				p := j.Spec.Template.Spec
				if p.NodeSelector["pool"] != "loadgen" || len(p.Tolerations) != 1 || p.Tolerations[0].Effect != corev1.TaintEffectNoSchedule || p.ServiceAccountName != "goodput" {
					t.Errorf("%s: %+v", name, p)
				}
			}
		}},
		// Anti-affinity required, or none.
		{"required spread", func(o *Options) { o.AntiAffinity = AntiRequired }, func(t *testing.T, got *kubetest.Objects) {
			a := got.Jobs["bench-a"].Spec.Template.Spec.Affinity.PodAntiAffinity
			if len(a.RequiredDuringSchedulingIgnoredDuringExecution) != 1 || len(a.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
				t.Errorf("anti-affinity %+v", a)
			}
		}},
		{"no spread", func(o *Options) { o.AntiAffinity = AntiNone }, func(t *testing.T, got *kubetest.Objects) {
			if a := got.Jobs["bench-a"].Spec.Template.Spec.Affinity; a != nil {
				t.Errorf("affinity %+v", a)
			}
		}},
		// A small dataset travels in a ConfigMap and is mounted read-only.
		{"dataset in a ConfigMap", func(o *Options) {
			o.Dataset = &Dataset{File: "prompts.jsonl", Content: []byte(`{"prompt":"hi"}` + "\n")}
		}, func(t *testing.T, got *kubetest.Objects) {
			cm := got.ConfigMaps["bench-a-dataset"]
			p := got.Jobs["bench-a"].Spec.Template.Spec
			c := p.Containers[0]
			if cm == nil || cm.Data["prompts.jsonl"] != "{\"prompt\":\"hi\"}\n" || p.Volumes[1].ConfigMap.Name != "bench-a-dataset" ||
				!c.VolumeMounts[1].ReadOnly || !slices.Contains(c.Args, "/dataset/prompts.jsonl") {
				t.Errorf("dataset: %+v %+v %q", cm, p.Volumes, c.Args)
			}
		}},
		// A file that is not UTF-8 goes as binary data.
		{"binary dataset", func(o *Options) { o.Dataset = &Dataset{File: "d.bin", Content: []byte{0xff, 0xfe, 0}} }, func(t *testing.T, got *kubetest.Objects) {
			if b := got.ConfigMaps["bench-a-dataset"].BinaryData["d.bin"]; !bytes.Equal(b, []byte{0xff, 0xfe, 0}) {
				t.Errorf("binary data %v", b)
			}
		}},
		// A large dataset comes from its own claim.
		{"dataset on a claim", func(o *Options) { o.Dataset = &Dataset{Claim: "datasets", Path: "sharegpt/v3.json"} }, func(t *testing.T, got *kubetest.Objects) {
			p := got.Jobs["bench-a"].Spec.Template.Spec
			if _, ok := got.ConfigMaps["bench-a-dataset"]; ok || p.Volumes[1].PersistentVolumeClaim.ClaimName != "datasets" ||
				!p.Volumes[1].PersistentVolumeClaim.ReadOnly || !slices.Contains(p.Containers[0].Args, "/dataset/sharegpt/v3.json") {
				t.Errorf("dataset: %+v %q", p.Volumes, p.Containers[0].Args)
			}
		}},
		// Without a server, an in-cluster simulator, found by its Service.
		{"simulator", func(o *Options) {
			o.Command = []string{"bench", "--request-rate", "40"}
			o.Sim = &Sim{Args: []string{"--gpu", "A100"}}
		}, func(t *testing.T, got *kubetest.Objects) {
			d, s := got.Deployments["bench-a-sim"], got.Services["bench-a-sim"]
			if d == nil || s == nil {
				t.Fatalf("objects %v", got)
			}
			kubetest.CheckPod(t, "sim pod", d.Spec.Template.Spec)
			c := d.Spec.Template.Spec.Containers[0]
			if !slices.Equal(c.Args, []string{"sim", "--host", "0.0.0.0", "--port", "8000", "--gpu", "A100"}) || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8000 {
				t.Errorf("sim container %+v", c)
			}
			if !subset(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) || !subset(s.Spec.Selector, d.Spec.Template.Labels) ||
				s.Spec.Ports[0].TargetPort.StrVal != "http" || c.ReadinessProbe.HTTPGet.Port.StrVal != "http" {
				t.Errorf("selectors or ports do not meet: %+v %+v", d.Spec, s.Spec)
			}
			// The sim's pods are not shards: the anti-affinity ignores them.
			if subset(got.Jobs["bench-a"].Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector.MatchLabels, d.Spec.Template.Labels) {
				t.Error("the shards keep away from the simulator")
			}
			if args := got.Jobs["bench-a"].Spec.Template.Spec.Containers[0].Args; !slices.Equal(args[3:5], []string{"--base-url", "http://bench-a-sim:8000"}) {
				t.Errorf("shard args %q", args)
			}
		}},
		// A sweep: one pod that resumes after a retry and writes its own report.
		{"sweep", func(o *Options) {
			o.Shards, o.Command, o.MergeArgs = 1, []string{"sweep", "--base-url", "http://vllm:8000", "--concurrency", "auto"}, nil
		}, func(t *testing.T, got *kubetest.Objects) {
			if _, ok := got.Jobs["bench-a-merge"]; ok || len(got.Jobs) != 1 {
				t.Errorf("objects %v", got)
			}
			args := got.Jobs["bench-a"].Spec.Template.Spec.Containers[0].Args
			if !slices.Equal(args[5:], []string{"--result-dir", "/results/$(GOODPUT_RUN)", "--resume", "--report", "/results/$(GOODPUT_RUN)/report.html"}) {
				t.Errorf("sweep args %q", args)
			}
		}},
		// No agreed start: the ConfigMap's start is empty, and so the flag's value.
		{"no start", func(o *Options) { o.StartAt = time.Time{} }, func(t *testing.T, got *kubetest.Objects) {
			if v, ok := got.ConfigMaps["bench-a-run"].Data["start-at"]; !ok || v != "" {
				t.Errorf("start-at %q %v", v, ok)
			}
		}},
		// A version that is no label value is left out, not written badly.
		{"devel version", func(o *Options) { o.Version = "(devel)" }, func(t *testing.T, got *kubetest.Objects) {
			if _, ok := got.Jobs["bench-a"].Labels["app.kubernetes.io/version"]; ok {
				t.Error("(devel) became a label")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			c.set(&o)
			c.check(t, render(t, o))
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"empty name", func(o *Options) { o.Name = "" }, "--name"},
		{"upper-case name", func(o *Options) { o.Name = "Bench" }, "--name \"Bench\""},
		{"long name", func(o *Options) { o.Name = strings.Repeat("a", MaxNameLen+1) }, "at most 40 characters"},
		{"bad namespace", func(o *Options) { o.Namespace = "a_b" }, "--namespace"},
		{"no image", func(o *Options) { o.Image = "" }, "--image is required"},
		{"pull policy", func(o *Options) { o.PullPolicy = "Sometimes" }, "--image-pull-policy"},
		{"not bench", func(o *Options) { o.Command = []string{"analyze"} }, "bench or sweep"},
		{"no command", func(o *Options) { o.Command = nil }, "bench or sweep"},
		{"sharded sweep", func(o *Options) { o.Command = []string{"sweep"} }, "a sweep runs its points one after another"},
		{"zero shards", func(o *Options) { o.Shards = 0 }, "--shards 0"},
		{"too many shards", func(o *Options) { o.Shards = 10001 }, "--shards 10001"},
		{"no merge timeout", func(o *Options) { o.MergeTimeout = 0 }, "--merge-timeout"},
		{"negative backoff", func(o *Options) { o.BackoffLimitPerIndex = -1 }, "--backoff-limit-per-index"},
		{"anti-affinity", func(o *Options) { o.AntiAffinity = "maybe" }, "--anti-affinity"},
		{"results size", func(o *Options) { o.Results.Size = "lots" }, "--results-size"},
		{"results claim", func(o *Options) { o.Results.Claim = "Bad Claim" }, "--results-claim"},
		{"dataset too big", func(o *Options) { o.Dataset = &Dataset{File: "d", Content: make([]byte, MaxConfigMapBytes+1)} }, "more than a ConfigMap holds"},
		{"dataset key", func(o *Options) { o.Dataset = &Dataset{File: "a b", Content: []byte("x")} }, "cannot be a ConfigMap key"},
		{"dataset escapes its claim", func(o *Options) { o.Dataset = &Dataset{Claim: "d", Path: "../etc/passwd"} }, "relative"},
		{"dataset absolute", func(o *Options) { o.Dataset = &Dataset{Claim: "d", Path: "/x"} }, "relative"},
		{"secret", func(o *Options) { o.Secrets = []SecretEnv{{"1X", "s", "k"}} }, "want ENV=SECRET:KEY"},
		{"node selector", func(o *Options) { o.NodeSelector = map[string]string{"pool": "a b"} }, "--node-selector"},
		{"resources", func(o *Options) { o.Resources.CPU = "fast" }, `resource "fast"`},
		{"toleration effect", func(o *Options) { o.Tolerations = []Toleration{{Key: "k", Operator: "Exists", Effect: "Never"}} }, "effect \"Never\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			c.set(&o)
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			if _, merr := Manifests(o); merr == nil {
				t.Error("Manifests accepted invalid options")
			}
		})
	}
	if o := base(); o.Validate() != nil {
		t.Errorf("the base options are invalid: %v", o.Validate())
	}
}

func TestParseToleration(t *testing.T) {
	cases := []struct {
		in   string
		want Toleration
		err  bool
	}{
		{"dedicated=loadgen:NoSchedule", Toleration{Key: "dedicated", Operator: "Equal", Value: "loadgen", Effect: "NoSchedule"}, false},
		{"gpu:NoExecute", Toleration{Key: "gpu", Operator: "Exists", Effect: "NoExecute"}, false},
		{"gpu", Toleration{Key: "gpu", Operator: "Exists"}, false},
		{"example.com/pool=a", Toleration{Key: "example.com/pool", Operator: "Equal", Value: "a"}, false},
		{"", Toleration{}, true},
		{":NoSchedule", Toleration{}, true},
		{"k=v:Sometimes", Toleration{}, true},
		{"k=a b", Toleration{}, true},
	}
	for _, c := range cases {
		got, err := ParseToleration(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseToleration(%q) = %+v, %v", c.in, got, err)
		}
	}
	if _, err := ParseSecretEnv("KEY=secret"); err == nil {
		t.Error("a secret without a key")
	}
	if s, err := ParseSecretEnv("KEY=openai:api-key"); err != nil || s != (SecretEnv{"KEY", "openai", "api-key"}) {
		t.Errorf("ParseSecretEnv = %+v, %v", s, err)
	}
}

func TestStreamsAndSize(t *testing.T) {
	cases := []struct {
		name string
		l    Load
		want int
	}{
		// A concurrency cap, dealt out over the shards.
		{"closed loop", Load{MaxConcurrency: 512, Rate: math.Inf(1), NumPrompts: 10000, Shards: 4}, 128},
		// An uneven cap: the biggest shard.
		{"uneven", Load{MaxConcurrency: 10, Rate: math.Inf(1), Shards: 4}, 3},
		// Everything at once: each shard's whole part.
		{"burst", Load{Rate: math.Inf(1), NumPrompts: 1000, Shards: 4}, 250},
		// Little's law, doubled: 40 req/s over 4 shards × 6.85 s × 2 = 137.
		{"open loop", Load{Rate: 40, NumPrompts: 8000, Shards: 4, Latency: 6850 * time.Millisecond}, 137},
		// Never more than the shard's requests.
		{"few prompts", Load{Rate: 40, NumPrompts: 20, Shards: 4, Latency: time.Minute}, 5},
		// At least one.
		{"slow", Load{Rate: 0.01, Shards: 4, Latency: time.Millisecond}, 1},
		// A cap above the requests is the requests.
		{"cap above prompts", Load{MaxConcurrency: 100, NumPrompts: 8, Shards: 2}, 4},
	}
	for _, c := range cases {
		if got := c.l.Streams(); got != c.want {
			t.Errorf("%s: %d streams, want %d", c.name, got, c.want)
		}
	}
	sizes := []struct {
		streams          int
		cpu, mem, memLim string
	}{
		{0, "600m", "192Mi", "384Mi"},
		{137, "700m", "192Mi", "384Mi"},
		{1000, "1500m", "384Mi", "768Mi"},
		{5000, "5500m", "1408Mi", "2816Mi"},
	}
	for _, s := range sizes {
		if r := Size(s.streams); r.CPU != s.cpu || r.Memory != s.mem || r.MemoryLimit != s.memLim {
			t.Errorf("Size(%d) = %+v, want %s %s %s", s.streams, r, s.cpu, s.mem, s.memLim)
		}
	}
}

func TestPlanFigures(t *testing.T) {
	def, _ := slo.ParseConditions("ttft<=500ms,tpot<=50ms")
	e2e, _ := slo.ParseConditions("ttft<=1s,e2e<=20s")
	floor, _ := slo.ParseConditions("tpot>=1ms")
	cases := []struct {
		cs   slo.Conditions
		out  int
		want time.Duration
	}{
		{def, 128, 500*time.Millisecond + 127*50*time.Millisecond},
		{e2e, 128, 20 * time.Second},
		{nil, 0, 500*time.Millisecond + 255*50*time.Millisecond},
		{floor, 2, 550 * time.Millisecond}, // a lower bound bounds nothing
	}
	for _, c := range cases {
		if got := LatencyBudget(c.cs, c.out); got != c.want {
			t.Errorf("LatencyBudget(%v, %d) = %v, want %v", c.cs, c.out, got, c.want)
		}
	}
	for _, c := range []struct {
		total int64
		out   int
		want  string
	}{{0, 128, "10Gi"}, {1000, 128, "1Gi"}, {10_000_000, 128, "56Gi"}} {
		if got := ResultsSize(c.total, c.out); got != c.want {
			t.Errorf("ResultsSize(%d, %d) = %s, want %s", c.total, c.out, got, c.want)
		}
	}
	if got := MergeTimeout(2*time.Minute, 200*time.Second, 6850*time.Millisecond); got != 21*time.Minute {
		t.Errorf("MergeTimeout = %v, want 21m", got)
	}
	if got := MergeTimeout(-time.Hour, 0, 0); got != 15*time.Minute {
		t.Errorf("MergeTimeout with a start in the past = %v, want 15m", got)
	}
	for v, want := range map[string]string{"v1.2.0": "ghcr.io/goodput-dev/goodput:v1.2.0", "(devel)": "ghcr.io/goodput-dev/goodput:latest",
		"v0.0.0-20261129123056-f93fdac9877d": "ghcr.io/goodput-dev/goodput:latest"} {
		if got := DefaultImage(v); got != want {
			t.Errorf("DefaultImage(%q) = %s", v, got)
		}
	}
}
