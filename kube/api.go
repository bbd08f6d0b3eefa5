package kube

// The subset of the Kubernetes API the manifests use, with the field names
// and shapes of k8s.io/api (core/v1, batch/v1, apps/v1). Pointers and
// omitempty leave out what is not set, as kubectl's own output does.

// Object is one manifest: a ConfigMap, PersistentVolumeClaim, Job,
// Deployment or Service.
type Object struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   ObjectMeta `yaml:"metadata"`
	// Exactly one of the following is set, by Kind.
	Data       map[string]string `yaml:"data,omitempty"`       // ConfigMap
	BinaryData map[string]string `yaml:"binaryData,omitempty"` // ConfigMap, base64
	Spec       any               `yaml:"spec,omitempty"`
}

// ObjectMeta is metadata.
type ObjectMeta struct {
	Name        string            `yaml:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// PVCSpec is a PersistentVolumeClaim's spec.
type PVCSpec struct {
	AccessModes      []string             `yaml:"accessModes"`
	StorageClassName *string              `yaml:"storageClassName,omitempty"`
	Resources        VolumeResourceDemand `yaml:"resources"`
}

// VolumeResourceDemand is a claim's resources.
type VolumeResourceDemand struct {
	Requests map[string]string `yaml:"requests"`
}

// JobSpec is a batch/v1 Job's spec.
type JobSpec struct {
	CompletionMode          string            `yaml:"completionMode,omitempty"`
	Completions             *int32            `yaml:"completions,omitempty"`
	Parallelism             *int32            `yaml:"parallelism,omitempty"`
	BackoffLimit            *int32            `yaml:"backoffLimit,omitempty"`
	BackoffLimitPerIndex    *int32            `yaml:"backoffLimitPerIndex,omitempty"`
	PodFailurePolicy        *PodFailurePolicy `yaml:"podFailurePolicy,omitempty"`
	PodReplacementPolicy    string            `yaml:"podReplacementPolicy,omitempty"`
	ActiveDeadlineSeconds   *int64            `yaml:"activeDeadlineSeconds,omitempty"`
	TTLSecondsAfterFinished *int32            `yaml:"ttlSecondsAfterFinished,omitempty"`
	Template                PodTemplateSpec   `yaml:"template"`
}

// PodFailurePolicy says what a failed pod means to its Job.
type PodFailurePolicy struct {
	Rules []PodFailurePolicyRule `yaml:"rules"`
}

// PodFailurePolicyRule matches failed pods by exit code or condition.
type PodFailurePolicyRule struct {
	Action          string                       `yaml:"action"`
	OnExitCodes     *PodFailurePolicyOnExitCodes `yaml:"onExitCodes,omitempty"`
	OnPodConditions []PodFailurePolicyOnPodCond  `yaml:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodes matches a container's exit codes.
type PodFailurePolicyOnExitCodes struct {
	ContainerName string  `yaml:"containerName,omitempty"`
	Operator      string  `yaml:"operator"`
	Values        []int32 `yaml:"values"`
}

// PodFailurePolicyOnPodCond matches a pod condition.
type PodFailurePolicyOnPodCond struct {
	Type   string `yaml:"type"`
	Status string `yaml:"status"`
}

// DeploymentSpec is an apps/v1 Deployment's spec.
type DeploymentSpec struct {
	Replicas *int32          `yaml:"replicas,omitempty"`
	Selector LabelSelector   `yaml:"selector"`
	Template PodTemplateSpec `yaml:"template"`
}

// ServiceSpec is a v1 Service's spec.
type ServiceSpec struct {
	Selector map[string]string `yaml:"selector"`
	Ports    []ServicePort     `yaml:"ports"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string `yaml:"name,omitempty"`
	Port       int32  `yaml:"port"`
	TargetPort string `yaml:"targetPort,omitempty"` // a named container port
}

// LabelSelector selects by labels.
type LabelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

// PodTemplateSpec is a pod template.
type PodTemplateSpec struct {
	Metadata ObjectMeta `yaml:"metadata"`
	Spec     PodSpec    `yaml:"spec"`
}

// PodSpec is a pod's spec.
type PodSpec struct {
	RestartPolicy      string              `yaml:"restartPolicy,omitempty"`
	ServiceAccountName string              `yaml:"serviceAccountName,omitempty"`
	NodeSelector       map[string]string   `yaml:"nodeSelector,omitempty"`
	Tolerations        []Toleration        `yaml:"tolerations,omitempty"`
	Affinity           *Affinity           `yaml:"affinity,omitempty"`
	SecurityContext    *PodSecurityContext `yaml:"securityContext,omitempty"`
	Containers         []Container         `yaml:"containers"`
	Volumes            []Volume            `yaml:"volumes,omitempty"`
}

// Toleration lets a pod onto tainted nodes.
type Toleration struct {
	Key      string `yaml:"key,omitempty"`
	Operator string `yaml:"operator,omitempty"`
	Value    string `yaml:"value,omitempty"`
	Effect   string `yaml:"effect,omitempty"`
}

// Affinity holds the pod anti-affinity that spreads the shards.
type Affinity struct {
	PodAntiAffinity *PodAntiAffinity `yaml:"podAntiAffinity,omitempty"`
}

// PodAntiAffinity keeps pods apart.
type PodAntiAffinity struct {
	Required  []PodAffinityTerm         `yaml:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	Preferred []WeightedPodAffinityTerm `yaml:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm names the pods to keep apart from, and over what.
type PodAffinityTerm struct {
	LabelSelector LabelSelector `yaml:"labelSelector"`
	TopologyKey   string        `yaml:"topologyKey"`
}

// WeightedPodAffinityTerm is a preference.
type WeightedPodAffinityTerm struct {
	Weight          int32           `yaml:"weight"`
	PodAffinityTerm PodAffinityTerm `yaml:"podAffinityTerm"`
}

// PodSecurityContext is a pod's security context.
type PodSecurityContext struct {
	RunAsNonRoot   *bool           `yaml:"runAsNonRoot,omitempty"`
	RunAsUser      *int64          `yaml:"runAsUser,omitempty"`
	RunAsGroup     *int64          `yaml:"runAsGroup,omitempty"`
	FSGroup        *int64          `yaml:"fsGroup,omitempty"`
	SeccompProfile *SeccompProfile `yaml:"seccompProfile,omitempty"`
}

// SeccompProfile names a seccomp profile.
type SeccompProfile struct {
	Type string `yaml:"type"`
}

// Container is one container.
type Container struct {
	Name            string                `yaml:"name"`
	Image           string                `yaml:"image"`
	ImagePullPolicy string                `yaml:"imagePullPolicy,omitempty"`
	Args            []string              `yaml:"args,omitempty"`
	Env             []EnvVar              `yaml:"env,omitempty"`
	Ports           []ContainerPort       `yaml:"ports,omitempty"`
	Resources       ResourceRequirements  `yaml:"resources"`
	VolumeMounts    []VolumeMount         `yaml:"volumeMounts,omitempty"`
	ReadinessProbe  *Probe                `yaml:"readinessProbe,omitempty"`
	SecurityContext *ContainerSecurityCtx `yaml:"securityContext,omitempty"`
}

// EnvVar is an environment variable, by value or by reference.
type EnvVar struct {
	Name      string        `yaml:"name"`
	Value     string        `yaml:"value,omitempty"`
	ValueFrom *EnvVarSource `yaml:"valueFrom,omitempty"`
}

// EnvVarSource is where a variable's value comes from.
type EnvVarSource struct {
	FieldRef        *ObjectFieldSelector `yaml:"fieldRef,omitempty"`
	SecretKeyRef    *KeySelector         `yaml:"secretKeyRef,omitempty"`
	ConfigMapKeyRef *KeySelector         `yaml:"configMapKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod (the downward API).
type ObjectFieldSelector struct {
	FieldPath string `yaml:"fieldPath"`
}

// KeySelector selects a key of a Secret or ConfigMap.
type KeySelector struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional *bool  `yaml:"optional,omitempty"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string `yaml:"name,omitempty"`
	ContainerPort int32  `yaml:"containerPort"`
	Protocol      string `yaml:"protocol,omitempty"`
}

// ResourceRequirements are requests and limits.
type ResourceRequirements struct {
	Requests map[string]string `yaml:"requests,omitempty"`
	Limits   map[string]string `yaml:"limits,omitempty"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	SubPath   string `yaml:"subPath,omitempty"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

// Probe is a readiness probe over HTTP.
type Probe struct {
	HTTPGet       *HTTPGetAction `yaml:"httpGet,omitempty"`
	PeriodSeconds int32          `yaml:"periodSeconds,omitempty"`
}

// HTTPGetAction is a GET of a path on a named port.
type HTTPGetAction struct {
	Path string `yaml:"path"`
	Port string `yaml:"port"`
}

// ContainerSecurityCtx is a container's security context.
type ContainerSecurityCtx struct {
	AllowPrivilegeEscalation *bool         `yaml:"allowPrivilegeEscalation,omitempty"`
	ReadOnlyRootFilesystem   *bool         `yaml:"readOnlyRootFilesystem,omitempty"`
	Capabilities             *Capabilities `yaml:"capabilities,omitempty"`
}

// Capabilities are Linux capabilities dropped (or added).
type Capabilities struct {
	Drop []string `yaml:"drop,omitempty"`
}

// Volume is a pod volume: a claim or a ConfigMap.
type Volume struct {
	Name                  string                 `yaml:"name"`
	PersistentVolumeClaim *PVCVolumeSource       `yaml:"persistentVolumeClaim,omitempty"`
	ConfigMap             *ConfigMapVolumeSource `yaml:"configMap,omitempty"`
}

// PVCVolumeSource mounts a claim.
type PVCVolumeSource struct {
	ClaimName string `yaml:"claimName"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	Name string `yaml:"name"`
}

func ptr[T any](v T) *T { return &v }
