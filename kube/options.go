package kube

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Options describe a sharded run on Kubernetes. The caller fills them from
// its flags, then calls Manifests.
type Options struct {
	// Name prefixes every object and names the run's directory on the
	// results volume; a DNS label of at most MaxNameLen characters.
	Name      string
	Namespace string // empty: the namespace kubectl applies to
	Image     string
	// PullPolicy is the images' pull policy; empty means IfNotPresent.
	PullPolicy     string
	ServiceAccount string
	NodeSelector   map[string]string
	Tolerations    []Toleration

	// Shards is how many pods split the schedule; a sweep runs in one.
	Shards int
	// Command is the goodput command line every shard runs ("bench", its
	// flags), less what the manifests add: --shards, --start-at,
	// --result-dir, and --base-url or --dataset-path when Sim or Dataset
	// provide them.
	Command []string
	// StartAt is the agreed start of the shards, kept in the run's
	// ConfigMap (NAME-run, key start-at) that the pods read when they
	// start; zero leaves it empty: each shard starts when ready.
	StartAt time.Time
	// MergeArgs are flags of the merge step (SLO, percentiles, gates).
	MergeArgs []string
	// MergeTimeout bounds the merge step's wait for the shards.
	MergeTimeout time.Duration
	// BackoffLimitPerIndex is how often a failed shard pod is retried.
	BackoffLimitPerIndex int
	// AntiAffinity keeps shard pods on different nodes: AntiPreferred,
	// AntiRequired or AntiNone.
	AntiAffinity string

	Results Results
	// Dataset, when set, is mounted at DatasetMount in every shard pod.
	Dataset *Dataset
	// Secrets become environment variables of the shard pods, by
	// reference: their values never appear in the manifests.
	Secrets []SecretEnv
	// Resources are the shard pods' requests; see Size.
	Resources Resources
	// Sim, when set, adds an in-cluster simulator for the shards to load.
	Sim *Sim
	// Version labels the objects (app.kubernetes.io/version) when it is a
	// valid label value.
	Version string
}

// Results is the shared volume the shards write to and the merge reads.
type Results struct {
	Claim        string // an existing ReadWriteMany claim; empty: create NAME-results
	Size         string // the created claim's size, e.g. "10Gi"
	StorageClass string // the created claim's storage class; empty: the cluster's default
}

// Dataset is the file a shard's --dataset-path names: small, in a
// ConfigMap the manifests carry; large, on a claim of its own.
type Dataset struct {
	File    string // the file's base name, for a ConfigMap
	Content []byte // the file, for a ConfigMap
	Claim   string // a claim holding the dataset, mounted read-only
	Path    string // the file's path within Claim
}

// SecretEnv is an environment variable set from a key of a Secret.
type SecretEnv struct {
	Env, Secret, Key string
}

// Resources are a container's requests; memory is also its limit's base.
type Resources struct {
	CPU, Memory, MemoryLimit string
}

// Sim is an in-cluster `goodput sim` for the shards to load.
type Sim struct {
	Args []string // flags of goodput sim (--gpu, --model, …), less --host and --port
}

// Values of Options.AntiAffinity.
const (
	AntiPreferred = "preferred"
	AntiRequired  = "required"
	AntiNone      = "none"
)

// Paths inside the pods, and limits.
const (
	ResultsMount = "/results"
	DatasetMount = "/dataset"
	SimPort      = 8000
	// MaxNameLen leaves room for the suffixes of derived names
	// (-results, -merge) and the pod names Kubernetes builds from them.
	MaxNameLen = 40
	// MaxConfigMapBytes is the largest dataset carried in a ConfigMap:
	// the API's limit is 1 MiB for the whole object.
	MaxConfigMapBytes = 1<<20 - 16<<10
)

var (
	dnsLabel  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsName   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	envName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	quantity  = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
	labelText = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)
	labelKey  = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
)

// Validate reports every problem of the options, each naming its flag.
func (o *Options) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(o.Name) > MaxNameLen || !dnsLabel.MatchString(o.Name) {
		bad("--name %q: want lower-case letters, digits and '-', at most %d characters, starting and ending with a letter or digit", o.Name, MaxNameLen)
	}
	if o.Namespace != "" && (len(o.Namespace) > 63 || !dnsLabel.MatchString(o.Namespace)) {
		bad("--namespace %q is not a valid namespace name", o.Namespace)
	}
	if o.Image == "" {
		bad("--image is required")
	}
	switch o.PullPolicy {
	case "", "Always", "IfNotPresent", "Never":
	default:
		bad("--image-pull-policy %q: want Always, IfNotPresent or Never", o.PullPolicy)
	}
	if o.ServiceAccount != "" && !dnsName.MatchString(o.ServiceAccount) {
		bad("--service-account %q is not a valid name", o.ServiceAccount)
	}
	for k, v := range o.NodeSelector {
		if !labelKey.MatchString(k) || len(v) > 63 || !labelText.MatchString(v) {
			bad("--node-selector %s=%s: not a label key and value", k, v)
		}
	}
	for _, t := range o.Tolerations {
		if err := t.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(o.Command) == 0 || (o.Command[0] != "bench" && o.Command[0] != "sweep") {
		bad("the command after -- must be a goodput bench or sweep command line")
	} else if o.Command[0] == "sweep" && o.Shards != 1 {
		bad("--shards %d: a sweep runs its points one after another from one process; use --shards 1", o.Shards)
	}
	if o.Shards < 1 || o.Shards > 10000 {
		bad("--shards %d: want 1 to 10000", o.Shards)
	}
	if o.MergeTimeout <= 0 {
		bad("--merge-timeout must be > 0, got %v", o.MergeTimeout)
	}
	if o.BackoffLimitPerIndex < 0 {
		bad("--backoff-limit-per-index must be ≥ 0, got %d", o.BackoffLimitPerIndex)
	}
	if !slices.Contains([]string{"", AntiPreferred, AntiRequired, AntiNone}, o.AntiAffinity) {
		bad("--anti-affinity %q: want preferred, required or none", o.AntiAffinity)
	}
	if r := o.Results; r.Claim != "" && !dnsName.MatchString(r.Claim) {
		bad("--results-claim %q is not a valid claim name", r.Claim)
	} else if r.Claim == "" && !quantity.MatchString(r.Size) {
		bad("--results-size %q: want a quantity such as 10Gi", r.Size)
	}
	if d := o.Dataset; d != nil {
		switch {
		case d.Claim != "" && !dnsName.MatchString(d.Claim):
			bad("--dataset-claim %q is not a valid claim name", d.Claim)
		case d.Claim != "" && (d.Path == "" || strings.HasPrefix(d.Path, "/") || slices.Contains(strings.Split(d.Path, "/"), "..")):
			bad("--dataset-path %q: on a claim, give the file's path within it, relative", d.Path)
		case d.Claim == "" && len(d.Content) > MaxConfigMapBytes:
			bad("the dataset is %d bytes, more than a ConfigMap holds (%d): put it on a volume and give --dataset-claim", len(d.Content), MaxConfigMapBytes)
		case d.Claim == "" && !configMapKey.MatchString(d.File):
			bad("dataset file name %q cannot be a ConfigMap key", d.File)
		}
	}
	for _, s := range o.Secrets {
		if !envName.MatchString(s.Env) || !dnsName.MatchString(s.Secret) || s.Key == "" || !configMapKey.MatchString(s.Key) {
			bad("secret %s=%s:%s: want ENV=SECRET:KEY, a variable name, a Secret's name and one of its keys", s.Env, s.Secret, s.Key)
		}
	}
	for _, q := range []string{o.Resources.CPU, o.Resources.Memory, o.Resources.MemoryLimit} {
		if q != "" && !quantity.MatchString(q) {
			bad("resource %q is not a quantity", q)
		}
	}
	return errors.Join(errs...)
}

var configMapKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// ParseToleration reads a toleration as kubectl writes taints:
// key[=value][:effect]. A value makes the operator Equal, none Exists;
// no effect tolerates every effect.
func ParseToleration(s string) (Toleration, error) {
	rest, effect, _ := strings.Cut(s, ":")
	key, value, hasValue := strings.Cut(rest, "=")
	t := Toleration{Key: key, Effect: effect, Operator: "Exists"}
	if hasValue {
		t.Operator, t.Value = "Equal", value
	}
	if err := t.validate(); err != nil {
		return Toleration{}, err
	}
	return t, nil
}

func (t Toleration) validate() error {
	switch {
	case t.Key == "" || !labelKey.MatchString(t.Key):
		return fmt.Errorf("--toleration %q: want key[=value][:effect] with a label key", t.Key)
	case t.Operator == "Equal" && !labelText.MatchString(t.Value):
		return fmt.Errorf("--toleration %s=%s: not a label value", t.Key, t.Value)
	case !slices.Contains([]string{"", "NoSchedule", "PreferNoSchedule", "NoExecute"}, t.Effect):
		return fmt.Errorf("--toleration %s: effect %q, want NoSchedule, PreferNoSchedule or NoExecute", t.Key, t.Effect)
	}
	return nil
}

// ParseSecretEnv reads ENV=SECRET:KEY.
func ParseSecretEnv(s string) (SecretEnv, error) {
	env, ref, ok := strings.Cut(s, "=")
	secret, key, ok2 := strings.Cut(ref, ":")
	if !ok || !ok2 || env == "" || secret == "" || key == "" {
		return SecretEnv{}, fmt.Errorf("%q: want ENV=SECRET:KEY", s)
	}
	return SecretEnv{Env: env, Secret: secret, Key: key}, nil
}
