package kube

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Names of the run's ConfigMap keys and of the pods' environment.
const (
	KeyStartAt = "start-at" // the agreed start, RFC 3339; empty: none
	KeyRun     = "run"      // the run's directory on the results volume
	EnvStartAt = "GOODPUT_START_AT"
	EnvRun     = "GOODPUT_RUN"
	EnvNode    = "NODE_NAME"
	container  = "goodput"
)

// Exit codes of goodput that the Job must not retry: a usage error, or a
// sweep's failed gate, comes out the same every time.
var exitFinal = []int32{2, 3}

// Component labels.
const (
	CompShard   = "shard"
	CompMerge   = "merge"
	CompSim     = "sim"
	CompResults = "results"
	CompDataset = "dataset"
	CompRun     = "run"
)

// Names of the run's objects.
func (o *Options) RunConfigName() string { return o.Name + "-run" }
func (o *Options) ResultsClaim() string {
	if o.Results.Claim != "" {
		return o.Results.Claim
	}
	return o.Name + "-results"
}
func (o *Options) DatasetName() string  { return o.Name + "-dataset" }
func (o *Options) MergeJobName() string { return o.Name + "-merge" }
func (o *Options) SimName() string      { return o.Name + "-sim" }

// SimURL is the in-cluster simulator's base URL, from the shards' pods.
func (o *Options) SimURL() string { return fmt.Sprintf("http://%s:%d", o.SimName(), SimPort) }

// RunDir is the run's directory in the pods, as a path with the run's
// ConfigMap value in it for Kubernetes to expand.
func RunDir() string { return ResultsMount + "/$(" + EnvRun + ")" }

// Manifests returns the run's objects, in the order they are applied:
// the run's ConfigMap, the dataset's, the results claim, the simulator,
// the shards' Job and the merge Job (none for a sweep, which writes its
// own report).
func Manifests(o Options) ([]Object, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	objs := []Object{o.runConfig()}
	if d := o.Dataset; d != nil && d.Claim == "" {
		objs = append(objs, o.datasetConfig())
	}
	if o.Results.Claim == "" {
		objs = append(objs, o.resultsClaim())
	}
	if o.Sim != nil {
		objs = append(objs, o.simDeployment(), o.simService())
	}
	objs = append(objs, o.shardJob())
	if !o.sweep() {
		objs = append(objs, o.mergeJob())
	}
	return objs, nil
}

func (o *Options) sweep() bool { return len(o.Command) > 0 && o.Command[0] == "sweep" }

func (o *Options) meta(name, component string) ObjectMeta {
	return ObjectMeta{Name: name, Namespace: o.Namespace, Labels: o.labels(component)}
}

// labels are the recommended labels of every object of the run.
func (o *Options) labels(component string) map[string]string {
	l := map[string]string{
		"app.kubernetes.io/name":      "goodput",
		"app.kubernetes.io/instance":  o.Name,
		"app.kubernetes.io/component": component,
	}
	if v := o.Version; v != "" && len(v) <= 63 && labelText.MatchString(v) {
		l["app.kubernetes.io/version"] = v
	}
	return l
}

// selector picks the pods of one component of the run.
func (o *Options) selector(component string) map[string]string {
	return map[string]string{"app.kubernetes.io/instance": o.Name, "app.kubernetes.io/component": component}
}

func (o *Options) runConfig() Object {
	start := ""
	if !o.StartAt.IsZero() {
		start = o.StartAt.UTC().Format(time.RFC3339Nano)
	}
	return Object{APIVersion: "v1", Kind: "ConfigMap", Metadata: o.meta(o.RunConfigName(), CompRun),
		Data: map[string]string{KeyStartAt: start, KeyRun: o.Name}}
}

func (o *Options) datasetConfig() Object {
	d := o.Dataset
	obj := Object{APIVersion: "v1", Kind: "ConfigMap", Metadata: o.meta(o.DatasetName(), CompDataset)}
	if utf8.Valid(d.Content) {
		obj.Data = map[string]string{d.File: string(d.Content)}
	} else {
		obj.BinaryData = map[string]string{d.File: base64.StdEncoding.EncodeToString(d.Content)}
	}
	return obj
}

func (o *Options) resultsClaim() Object {
	spec := PVCSpec{
		// Every shard pod, on its own node, writes here while the merge
		// reads: only ReadWriteMany allows that.
		AccessModes: []string{"ReadWriteMany"},
		Resources:   VolumeResourceDemand{Requests: map[string]string{"storage": o.Results.Size}},
	}
	if o.Results.StorageClass != "" {
		spec.StorageClassName = ptr(o.Results.StorageClass)
	}
	return Object{APIVersion: "v1", Kind: "PersistentVolumeClaim", Metadata: o.meta(o.ResultsClaim(), CompResults), Spec: spec}
}

// podSecurity runs as the image's non-root user, with the runtime's
// seccomp profile; fsGroup lets it write to the results volume where the
// volume supports ownership changes.
func podSecurity() *PodSecurityContext {
	return &PodSecurityContext{
		RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)), RunAsGroup: ptr(int64(65532)), FSGroup: ptr(int64(65532)),
		SeccompProfile: &SeccompProfile{Type: "RuntimeDefault"},
	}
}

func containerSecurity() *ContainerSecurityCtx {
	return &ContainerSecurityCtx{
		AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true),
		Capabilities: &Capabilities{Drop: []string{"ALL"}},
	}
}

func (o *Options) pullPolicy() string {
	if o.PullPolicy == "" {
		return "IfNotPresent"
	}
	return o.PullPolicy
}

// podSpec is what every pod of the run shares: where it may run, as whom.
func (o *Options) podSpec(c Container, volumes []Volume) PodSpec {
	c.Image, c.ImagePullPolicy, c.SecurityContext = o.Image, o.pullPolicy(), containerSecurity()
	return PodSpec{
		RestartPolicy: "Never", ServiceAccountName: o.ServiceAccount,
		NodeSelector: o.NodeSelector, Tolerations: o.Tolerations,
		SecurityContext: podSecurity(), Containers: []Container{c}, Volumes: volumes,
	}
}

func runEnv(o *Options, key, env string) EnvVar {
	return EnvVar{Name: env, ValueFrom: &EnvVarSource{ConfigMapKeyRef: &KeySelector{Name: o.RunConfigName(), Key: key}}}
}

func (o *Options) resultsVolume() (Volume, VolumeMount) {
	return Volume{Name: "results", PersistentVolumeClaim: &PVCVolumeSource{ClaimName: o.ResultsClaim()}},
		VolumeMount{Name: "results", MountPath: ResultsMount}
}

// ShardArgs returns the arguments of every shard pod: the command, then
// what the manifests add. Kubernetes expands the $(…) references from the
// container's environment; the command is written to reach goodput as
// given (see literalArgs).
func (o *Options) ShardArgs() []string {
	args := o.literalArgs(o.Command)
	if o.Sim != nil {
		args = append(args, "--base-url", o.SimURL())
	}
	if d := o.Dataset; d != nil {
		file := d.File
		if d.Claim != "" {
			file = d.Path
		}
		args = append(args, "--dataset-path", DatasetMount+"/"+literal(file, nil))
	}
	if o.sweep() {
		// A retried sweep pod carries on from the points already measured.
		return append(args, "--result-dir", RunDir(), "--resume", "--report", RunDir()+"/report.html")
	}
	return append(args, "--shards", strconv.Itoa(o.Shards), "--start-at=$("+EnvStartAt+")", "--result-dir", RunDir())
}

// MergeArgs returns the arguments of the merge pod.
func (o *Options) mergeArgs() []string {
	dir := RunDir()
	args := []string{"merge", dir, "--wait", "--shards", strconv.Itoa(o.Shards), "--wait-timeout", o.MergeTimeout.String(),
		"--output", dir + "/merged.jsonl", "--report", dir + "/report.html"}
	return append(args, o.literalArgs(o.MergeArgs)...)
}

func (o *Options) shardJob() Object {
	results, resultsMount := o.resultsVolume()
	volumes := []Volume{results}
	mounts := []VolumeMount{resultsMount}
	if d := o.Dataset; d != nil {
		v := Volume{Name: "dataset"}
		if d.Claim != "" {
			v.PersistentVolumeClaim = &PVCVolumeSource{ClaimName: d.Claim, ReadOnly: true}
		} else {
			v.ConfigMap = &ConfigMapVolumeSource{Name: o.DatasetName()}
		}
		volumes = append(volumes, v)
		mounts = append(mounts, VolumeMount{Name: "dataset", MountPath: DatasetMount, ReadOnly: true})
	}
	env := []EnvVar{
		{Name: EnvNode, ValueFrom: &EnvVarSource{FieldRef: &ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
		runEnv(o, KeyStartAt, EnvStartAt),
		runEnv(o, KeyRun, EnvRun),
	}
	for _, s := range o.Secrets {
		env = append(env, EnvVar{Name: s.Env, ValueFrom: &EnvVarSource{SecretKeyRef: &KeySelector{Name: s.Secret, Key: s.Key}}})
	}
	res := ResourceRequirements{Requests: map[string]string{}, Limits: map[string]string{}}
	if r := o.Resources; r.CPU != "" {
		// No CPU limit: the kernel's quota would pause the generator
		// mid-run and show up as dispatch lag the server did not cause.
		res.Requests["cpu"] = r.CPU
	}
	if r := o.Resources; r.Memory != "" {
		res.Requests["memory"] = r.Memory
		res.Limits["memory"] = cmpOr(r.MemoryLimit, r.Memory)
	}
	c := Container{Name: container, Args: o.ShardArgs(), Env: env, Resources: res, VolumeMounts: mounts}
	pod := o.podSpec(c, volumes)
	pod.Affinity = o.affinity()
	n := int32(o.Shards)
	spec := JobSpec{
		CompletionMode: "Indexed", Completions: ptr(n), Parallelism: ptr(n),
		// A shard whose pod dies is retried on its own; the other shards
		// go on. The retry skips what its schedule has passed, and the
		// records of the failed attempt stay on the volume for the merge.
		BackoffLimitPerIndex: ptr(int32(o.BackoffLimitPerIndex)),
		PodFailurePolicy: &PodFailurePolicy{Rules: []PodFailurePolicyRule{
			// A usage error or a failed gate comes out the same every time.
			{Action: "FailIndex", OnExitCodes: &PodFailurePolicyOnExitCodes{ContainerName: container, Operator: "In", Values: exitFinal}},
			// An evicted or preempted pod is retried without counting.
			{Action: "Ignore", OnPodConditions: []PodFailurePolicyOnPodCond{{Type: "DisruptionTarget", Status: "True"}}},
		}},
		// A replacement starts once the failed pod has stopped, so that two
		// attempts of a shard never send at once.
		PodReplacementPolicy: "Failed",
		Template:             PodTemplateSpec{Metadata: ObjectMeta{Labels: o.labels(CompShard)}, Spec: pod},
	}
	return Object{APIVersion: "batch/v1", Kind: "Job", Metadata: o.meta(o.Name, CompShard), Spec: spec}
}

// affinity keeps the shards on different nodes, so that each has a
// machine's CPU and network to itself.
func (o *Options) affinity() *Affinity {
	term := PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: o.selector(CompShard)}, TopologyKey: "kubernetes.io/hostname"}
	switch o.AntiAffinity {
	case AntiNone:
		return nil
	case AntiRequired:
		return &Affinity{PodAntiAffinity: &PodAntiAffinity{Required: []PodAffinityTerm{term}}}
	}
	return &Affinity{PodAntiAffinity: &PodAntiAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}}}
}

func (o *Options) mergeJob() Object {
	results, mount := o.resultsVolume()
	c := Container{
		Name: container, Args: o.mergeArgs(), Env: []EnvVar{runEnv(o, KeyRun, EnvRun)},
		// The merge keeps each latency exactly, a few bytes a value, and
		// the report a bounded sample: well under a GiB for millions of
		// requests.
		Resources:    ResourceRequirements{Requests: map[string]string{"cpu": "250m", "memory": "256Mi"}, Limits: map[string]string{"memory": "2Gi"}},
		VolumeMounts: []VolumeMount{mount},
	}
	spec := JobSpec{
		Completions: ptr(int32(1)), Parallelism: ptr(int32(1)),
		// A merge that found the run incomplete would find it so again.
		BackoffLimit: ptr(int32(0)),
		Template:     PodTemplateSpec{Metadata: ObjectMeta{Labels: o.labels(CompMerge)}, Spec: o.podSpec(c, []Volume{results})},
	}
	return Object{APIVersion: "batch/v1", Kind: "Job", Metadata: o.meta(o.MergeJobName(), CompMerge), Spec: spec}
}

func (o *Options) simDeployment() Object {
	args := append([]string{"sim", "--host", "0.0.0.0", "--port", strconv.Itoa(SimPort)}, o.literalArgs(o.Sim.Args)...)
	c := Container{
		Name: container, Args: args,
		Ports: []ContainerPort{{Name: "http", ContainerPort: SimPort, Protocol: "TCP"}},
		// The simulated engine is a loop of steps: about a core for a
		// couple of thousand streams.
		Resources:      ResourceRequirements{Requests: map[string]string{"cpu": "1", "memory": "512Mi"}, Limits: map[string]string{"memory": "2Gi"}},
		ReadinessProbe: &Probe{HTTPGet: &HTTPGetAction{Path: "/health", Port: "http"}, PeriodSeconds: 2},
	}
	pod := o.podSpec(c, nil)
	pod.RestartPolicy = "Always"
	spec := DeploymentSpec{
		Replicas: ptr(int32(1)),
		Selector: LabelSelector{MatchLabels: o.selector(CompSim)},
		Template: PodTemplateSpec{Metadata: ObjectMeta{Labels: o.labels(CompSim)}, Spec: pod},
	}
	return Object{APIVersion: "apps/v1", Kind: "Deployment", Metadata: o.meta(o.SimName(), CompSim), Spec: spec}
}

func (o *Options) simService() Object {
	spec := ServiceSpec{Selector: o.selector(CompSim), Ports: []ServicePort{{Name: "http", Port: SimPort, TargetPort: "http"}}}
	return Object{APIVersion: "v1", Kind: "Service", Metadata: o.meta(o.SimName(), CompSim), Spec: spec}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
