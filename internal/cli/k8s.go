package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/kube"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/version"
	"github.com/goodput-dev/goodput/workload"
)

// k8sFlags are the flag values of `goodput k8s`.
type k8sFlags struct {
	name, namespace, image, pullPolicy, serviceAccount string
	nodeSelector, tolerations, secretEnv               []string
	apiKeySecret                                       string
	shards                                             int
	startAt                                            string
	startDelay                                         time.Duration
	resultsClaim, resultsSize, storageClass            string
	datasetClaim                                       string
	antiAffinity                                       string
	backoff                                            int
	mergeTimeout                                       time.Duration
	streams                                            int
	cpu, memory                                        string
	kustomize, output                                  string
}

func newK8sCmd(env *Env) *cobra.Command {
	var f k8sFlags
	cmd := &cobra.Command{
		Use:   "k8s [flags] -- bench|sweep [flags]",
		Short: "Print the Kubernetes manifests that run a benchmark as an Indexed Job of shards, and merge them",
		Long: `k8s prints the manifests of a sharded run of the goodput command line given
after --, as plain YAML for kubectl apply -f -:

  - an Indexed Job of --shards pods (completions = parallelism = shards), each
    running the same command with --shards K and the agreed --start-at (a little
    after now: --start-delay), its shard taken from $JOB_COMPLETION_INDEX;
    a pod that dies is retried on its own (--backoff-limit-per-index), and its
    retry skips what the schedule has passed; a pod anti-affinity keeps the
    shards on different nodes;
  - a merge Job that waits on the results volume until every shard has
    finished, then merges them (goodput merge) into merged.jsonl and
    report.html, naming the shards that are missing or partial;
  - the results volume, a ReadWriteMany claim every pod mounts (or
    --results-claim), a ConfigMap of the run (its start and directory), the
    dataset as a ConfigMap when --dataset-path names a small file (or from
    --dataset-claim), and, when the command has no --base-url, an in-cluster
    goodput sim to load.

Resource requests are sized from each shard's streams in flight. Credentials
stay in Secrets, by reference: --api-key-secret and --secret-env, never a
value in the manifests. The command runs in the pods as given: a $(ENV)
naming a --secret-env variable (or OPENAI_API_KEY with --api-key-secret)
is the one thing Kubernetes expands in it, every other $ is escaped. --kustomize DIR writes the same objects as a
Kustomize base instead.`,
		Example: `  goodput k8s --shards 4 --namespace bench -- bench --base-url http://vllm:8000 \
      --request-rate 40 --num-prompts 8000 --random-input-len 512 --random-output-len 128 --ignore-eos \
      --gate 'p99(ttft)<=500ms' | kubectl apply -f -
  goodput k8s --shards 2 -- bench --request-rate 20 --num-prompts 1000     # against an in-cluster simulator
  goodput k8s --shards 8 --api-key-secret openai:key --node-selector pool=loadgen \
      --toleration dedicated=loadgen:NoSchedule -- bench --base-url https://api.example.com --max-concurrency 512
  goodput k8s --kustomize deploy/kustomize --name goodput --shards 4 -- bench --request-rate 40`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 || dash > 0 || len(args) == 0 {
				return usageErr("%s: give the goodput command to run after --, e.g. goodput k8s --shards 4 -- bench --base-url http://vllm:8000 --request-rate 40", cmd.CommandPath())
			}
			return runK8s(cmd, env, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.shards, "shards", 0, "pods that split the schedule (default: the command's --shards; 1 for a sweep)")
	fl.StringVar(&f.name, "name", "", "name of the run's objects and directory (default goodput-<start time>)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace of every object (default: kubectl's)")
	fl.StringVar(&f.image, "image", kube.DefaultImage(version.Get().Version), "goodput's container image")
	fl.StringVar(&f.pullPolicy, "image-pull-policy", "IfNotPresent", "Always, IfNotPresent or Never")
	fl.StringVar(&f.serviceAccount, "service-account", "", "service account of the pods")
	fl.StringArrayVar(&f.nodeSelector, "node-selector", nil, "schedule pods on nodes with this label, key=value (repeatable)")
	fl.StringArrayVar(&f.tolerations, "toleration", nil, "tolerate a taint, key[=value][:effect] as kubectl taint writes it (repeatable)")
	fl.StringVar(&f.apiKeySecret, "api-key-secret", "", "the API key from a Secret, SECRET:KEY: set as $OPENAI_API_KEY, which bench sends as a Bearer token")
	fl.StringArrayVar(&f.secretEnv, "secret-env", nil, "an environment variable from a Secret, ENV=SECRET:KEY (repeatable); the command can name it as $(ENV), e.g. --header 'X-Key=$(ENV)'")
	fl.StringVar(&f.startAt, "start-at", "", "the shards' agreed start, RFC 3339 (default: now + --start-delay)")
	fl.DurationVar(&f.startDelay, "start-delay", 2*time.Minute, "how long after now the shards start: time to apply the manifests and pull the image")
	fl.StringVar(&f.resultsClaim, "results-claim", "", "an existing ReadWriteMany claim for the results (default: create NAME-results)")
	fl.StringVar(&f.resultsSize, "results-size", "", "size of the created results claim (default: from the planned requests)")
	fl.StringVar(&f.storageClass, "storage-class", "", "storage class of the created results claim (one that offers ReadWriteMany)")
	fl.StringVar(&f.datasetClaim, "dataset-claim", "", "a claim holding the dataset; the command's --dataset-path is then the file's path within it")
	fl.StringVar(&f.antiAffinity, "anti-affinity", kube.AntiPreferred, "keep shards on different nodes: preferred, required or none")
	fl.IntVar(&f.backoff, "backoff-limit-per-index", 1, "retries of a failed shard pod")
	fl.DurationVar(&f.mergeTimeout, "merge-timeout", 0, "how long the merge waits for the shards (default: from the schedule)")
	fl.IntVar(&f.streams, "streams-per-shard", 0, "streams in flight per shard, for the resource requests (default: estimated from the load)")
	fl.StringVar(&f.cpu, "cpu", "", "CPU request of a shard pod (default: from its streams)")
	fl.StringVar(&f.memory, "memory", "", "memory request of a shard pod; the limit is twice it (default: from its streams)")
	fl.StringVar(&f.kustomize, "kustomize", "", "write a Kustomize base into this directory instead of printing YAML")
	fl.StringVarP(&f.output, "output", "o", "", "write the YAML to this file instead of standard output")
	return cmd
}

// quietEnv is the environment a command line is read in without running:
// no output, no environment.
func quietEnv() *Env {
	return &Env{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
}

func runK8s(cmd *cobra.Command, env *Env, f *k8sFlags, command []string) error {
	now := time.Now()
	o := kube.Options{
		Namespace: f.namespace, Image: f.image, PullPolicy: f.pullPolicy, ServiceAccount: f.serviceAccount,
		AntiAffinity: f.antiAffinity, BackoffLimitPerIndex: f.backoff, Version: version.Get().Version,
		Results: kube.Results{Claim: f.resultsClaim, Size: f.resultsSize, StorageClass: f.storageClass},
	}
	if err := f.applyPlacement(&o); err != nil {
		return err
	}
	var start time.Time
	switch {
	case f.kustomize != "" && f.startAt != "":
		return usageErr("--start-at: a Kustomize base has no start; an overlay sets it (see the kustomization.yaml)")
	case f.kustomize != "":
	case f.startAt != "":
		t, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return usageErr("--start-at %q: want an RFC 3339 time such as 2026-11-29T10:00:00Z", f.startAt)
		}
		if !t.After(now) {
			return usageErr("--start-at %s is in the past: the shards would skip their whole schedule", f.startAt)
		}
		start = t
	default:
		if f.startDelay < 0 {
			return usageErr("--start-delay must be ≥ 0, got %v", f.startDelay)
		}
		start = now.Add(f.startDelay).Truncate(time.Second).Add(time.Second).UTC()
	}
	var plan k8sPlan
	var err error
	switch command[0] {
	case "bench":
		plan, err = benchForK8s(f, command[1:], &o, &start)
	case "sweep":
		plan, err = sweepForK8s(f, command[1:], &o)
	default:
		return usageErr("goodput k8s runs bench or sweep, not %q", command[0])
	}
	if err != nil {
		return err
	}
	o.StartAt = start
	if o.Name = f.name; o.Name == "" {
		o.Name = "goodput-" + cmpOr(start, now).Format("20060102-150405")
	}
	if f.kustomize != "" {
		// A base is for any build: it names no version of its own.
		o.Version = ""
	}
	if o.Results.Claim == "" && o.Results.Size == "" {
		o.Results.Size = kube.ResultsSize(plan.total, plan.outputLen)
	}
	if o.MergeTimeout = f.mergeTimeout; o.MergeTimeout == 0 {
		until := time.Duration(0)
		if !start.IsZero() {
			until = start.Sub(now)
		}
		o.MergeTimeout = kube.MergeTimeout(until, plan.span, plan.latency)
	}
	streams := plan.streams
	if f.streams > 0 {
		streams = f.streams
	}
	o.Resources = kube.Size(streams)
	if f.cpu != "" {
		o.Resources.CPU = f.cpu
	}
	if f.memory != "" {
		o.Resources.Memory, o.Resources.MemoryLimit = f.memory, ""
	}
	if err := o.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if streams > kube.StreamsPerShard {
		fmt.Fprintf(env.Stderr, "goodput k8s: warning: about %d streams per shard; past about %d one process no longer sends within a millisecond on a small node (BENCHMARKS.md): give more --shards\n", streams, kube.StreamsPerShard)
	}
	comment := k8sComment(o, command, streams, start, now)
	if f.kustomize != "" {
		written, err := kube.WriteKustomize(f.kustomize, o, comment)
		if err != nil {
			return err
		}
		for _, p := range written {
			fmt.Fprintf(env.Stdout, "Wrote %s\n", p)
		}
		return nil
	}
	objs, err := kube.Manifests(o)
	if err != nil {
		return usageErr("%v", err)
	}
	var buf bytes.Buffer
	if err := kube.Write(&buf, comment, objs); err != nil {
		return err
	}
	if f.output == "" || f.output == "-" {
		_, err := env.Stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(f.output, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	fmt.Fprintf(env.Stderr, "Wrote %s\n", f.output)
	return nil
}

func cmpOr(t, or time.Time) time.Time {
	if t.IsZero() {
		return or
	}
	return t
}

// applyPlacement parses where the pods may run and the Secrets they read.
func (f *k8sFlags) applyPlacement(o *kube.Options) error {
	for _, s := range f.nodeSelector {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return usageErr("--node-selector %q: want key=value", s)
		}
		if o.NodeSelector == nil {
			o.NodeSelector = map[string]string{}
		}
		o.NodeSelector[k] = v
	}
	for _, s := range f.tolerations {
		t, err := kube.ParseToleration(s)
		if err != nil {
			return usageErr("%v", err)
		}
		o.Tolerations = append(o.Tolerations, t)
	}
	if f.apiKeySecret != "" {
		s, err := kube.ParseSecretEnv("OPENAI_API_KEY=" + f.apiKeySecret)
		if err != nil {
			return usageErr("--api-key-secret %q: want SECRET:KEY", f.apiKeySecret)
		}
		o.Secrets = append(o.Secrets, s)
	}
	for _, s := range f.secretEnv {
		se, err := kube.ParseSecretEnv(s)
		if err != nil {
			return usageErr("--secret-env %v", err)
		}
		o.Secrets = append(o.Secrets, se)
	}
	return nil
}

// k8sPlan is what the manifests are sized from.
type k8sPlan struct {
	streams   int           // in flight per shard
	total     int64         // requests of the whole run; 0 unknown
	outputLen int           // tokens asked per request; 0 unknown
	span      time.Duration // from the start to the last scheduled request, or the run's duration
	latency   time.Duration // a request's expected time in flight
}

// Flags of bench that the manifests set themselves, or that have no
// place in a pod.
var k8sOwned = map[string]string{
	"shard":      "each pod takes its shard from the Indexed Job ($JOB_COMPLETION_INDEX)",
	"result-dir": "every shard writes to the run's directory on the results volume",
	"run-name":   "the shards' records are named apart by default; a shared name would collide",
	"report":     "the merge step writes the merged run's report",
	"dry-run":    "goodput k8s reads the command without running it",
}

// benchForK8s reads a bench command line as bench would, checks it fits
// a sharded run, and fills o with the shards' command and the merge's
// flags.
func benchForK8s(f *k8sFlags, args []string, o *kube.Options, start *time.Time) (k8sPlan, error) {
	var cfg bench.Config
	var bf *benchFlags
	var fs *pflag.FlagSet
	c := benchCommand(quietEnv(), func(cmd *cobra.Command, env *Env, c bench.Config, fl *benchFlags) error {
		_, err := prepareBench(cmd, env, &c, fl)
		cfg, bf, fs = c, fl, cmd.Flags()
		return err
	})
	if err := readCommand(c, "bench", args); err != nil {
		return k8sPlan{}, err
	}
	for name, why := range k8sOwned {
		if fs.Changed(name) {
			return k8sPlan{}, usageErr("bench --%s: %s; drop it", name, why)
		}
	}
	if fs.Changed("api-key") {
		return k8sPlan{}, usageErr("bench --api-key would write the key into the manifests: keep it in a Secret and give goodput k8s --api-key-secret SECRET:KEY")
	}
	for name, vals := range cfg.Headers {
		lower := strings.ToLower(name)
		if !strings.Contains(lower, "auth") && !strings.Contains(lower, "key") && !strings.Contains(lower, "token") {
			continue
		}
		for _, v := range vals {
			if !o.SecretRef(v) {
				return k8sPlan{}, usageErr("bench --header %s: its value would be in the manifests: keep it in a Secret, give --secret-env VAR=SECRET:KEY and write --header '%s=$(VAR)'", name, name)
			}
		}
	}
	k := f.shards
	if fs.Changed("shards") {
		if k != 0 && k != cfg.Arrival.Shards {
			return k8sPlan{}, usageErr("--shards %d contradicts the command's --shards %d", k, cfg.Arrival.Shards)
		}
		k = cfg.Arrival.Shards
	}
	if k < 1 {
		return k8sPlan{}, usageErr("give --shards: how many pods split the schedule")
	}
	if fs.Changed("start-at") {
		if f.startAt != "" {
			return k8sPlan{}, usageErr("give the start once: goodput k8s --start-at, or the command's")
		}
		*start = cfg.StartAt
	}
	drop := map[string]bool{"shards": true, "start-at": true, "gate": true}
	if cfg.BaseURL == "" {
		// No server named (by --base-url, or vLLM's --host and --port):
		// the shards load an in-cluster simulator, with the simulator flags
		// the command gives.
		sim, err := simForK8s(bf)
		if err != nil {
			return k8sPlan{}, err
		}
		o.Sim = sim
		for _, name := range []string{"sim-gpu", "sim-model", "sim-profile", "sim-tensor-parallel-size", "sim-fault", "sim-seed"} {
			drop[name] = true
		}
	}
	if wl := cfg.Workload; workload.IsURL(wl.Path) {
		// Every pod fetches the text itself.
		if f.datasetClaim != "" {
			return k8sPlan{}, usageErr("--dataset-claim: --dataset-path %s is a URL, which every pod fetches; drop one of them", wl.Path)
		}
		if err := checkWorkload(&cfg); err != nil {
			return k8sPlan{}, err
		}
	} else if wl.Path != "" {
		drop["dataset-path"] = true
		if f.datasetClaim != "" {
			o.Dataset = &kube.Dataset{Claim: f.datasetClaim, Path: wl.Path}
		} else {
			if err := checkWorkload(&cfg); err != nil {
				return k8sPlan{}, err
			}
			b, err := readConfigMapDataset(wl.Path)
			if err != nil {
				return k8sPlan{}, err
			}
			o.Dataset = &kube.Dataset{File: filepath.Base(wl.Path), Content: b}
		}
	} else if f.datasetClaim != "" {
		return k8sPlan{}, usageErr("--dataset-claim: the command names no --dataset-path within it")
	} else if err := checkWorkload(&cfg); err != nil {
		return k8sPlan{}, err
	}
	// The schedule of shard 0 checks that K shards can split it; the whole
	// one gives the run's size and span.
	shard := cfg.Arrival
	shard.Shard, shard.Shards = 0, k
	if _, err := shard.Plan(); err != nil {
		return k8sPlan{}, usageErr("%v", err)
	}
	whole := cfg.Arrival
	whole.Shard, whole.Shards = 0, 0
	wp, err := whole.Plan()
	if err != nil {
		return k8sPlan{}, usageErr("%v", err)
	}
	o.Shards = k
	o.Command = append([]string{"bench"}, dropFlags(fs, args, drop)...)
	o.MergeArgs = mergeFlagsOf(bf, fs)
	conds, _ := slo.ParseConditions(cfg.Metrics.SLO)
	p := k8sPlan{total: int64(wp.Total), outputLen: cfg.Workload.Random.OutputLen}
	if d := cfg.Workload.Dataset; d != workload.DatasetRandom && d != workload.DatasetTxtSlices {
		p.outputLen = 0
	}
	p.latency = kube.LatencyBudget(conds, p.outputLen)
	p.streams = kube.Load{
		MaxConcurrency: cfg.Arrival.MaxConcurrency, Rate: cfg.Arrival.RequestRate, NumPrompts: cfg.Arrival.NumPrompts,
		Shards: k, Latency: p.latency,
	}.Streams()
	switch {
	case wp.Open != nil && wp.Open.Len() > 0:
		p.span = wp.Open.Offsets[wp.Open.Len()-1]
	case cfg.Arrival.Duration > 0:
		p.span = cfg.Arrival.Duration
	case wp.Closed != nil && wp.Closed.Concurrency > 0:
		// A closed loop of Count requests on Concurrency workers.
		p.span = time.Duration(math.Ceil(float64(wp.Closed.Count)/float64(wp.Closed.Concurrency))) * p.latency
	}
	return p, nil
}

// simForK8s turns bench's --sim-* flags into goodput sim's.
func simForK8s(bf *benchFlags) (*kube.Sim, error) {
	s := &kube.Sim{}
	if bf.simProfile != "" {
		return nil, usageErr("bench --sim-profile: the in-cluster simulator takes built-in profiles only (--sim-gpu, --sim-model); run goodput sim with your profile yourself and give --base-url")
	}
	if bf.simGPU != "" {
		s.Args = append(s.Args, "--gpu", bf.simGPU)
	}
	if bf.simModel != "" {
		s.Args = append(s.Args, "--model", bf.simModel)
	}
	if bf.simTP > 0 {
		s.Args = append(s.Args, "--tensor-parallel-size", strconv.Itoa(bf.simTP))
	}
	for _, ft := range bf.simFaults {
		s.Args = append(s.Args, "--fault", ft)
	}
	if bf.simSeed != 0 {
		s.Args = append(s.Args, "--seed", strconv.FormatUint(bf.simSeed, 10))
	}
	return s, nil
}

// mergeFlagsOf returns the flags that make the merge judge the run as
// each shard does: the SLO, the percentiles and their method, warm-up,
// and the gates, which belong to the whole run and so only to the merge.
func mergeFlagsOf(bf *benchFlags, fs *pflag.FlagSet) []string {
	m := bf.metrics
	var out []string
	if len(m.goodput) > 0 {
		out = append(out, "--goodput", strings.Join(m.goodput, " "))
	}
	if fs.Changed("slo") {
		out = append(out, "--slo", m.slo)
	}
	if fs.Changed("metric-percentiles") {
		out = append(out, "--metric-percentiles", m.percentiles)
	}
	if fs.Changed("percentile-method") {
		out = append(out, "--percentile-method", m.method)
	}
	if m.warmup {
		out = append(out, "--include-warmup")
	}
	for _, g := range m.gates {
		out = append(out, "--gate", g)
	}
	return out
}

// sweepForK8s reads a sweep command line: one pod runs it, with its
// records, sweep files and report on the results volume.
func sweepForK8s(f *k8sFlags, args []string, o *kube.Options) (k8sPlan, error) {
	dry := append(append([]string{}, args...), "--dry-run")
	var fs *pflag.FlagSet
	c := newSweepCmd(quietEnv())
	c.PreRunE = func(cmd *cobra.Command, _ []string) error { fs = cmd.Flags(); return nil }
	if err := readCommand(c, "sweep", dry); err != nil {
		return k8sPlan{}, err
	}
	for _, name := range []string{"result-dir", "resume", "report"} {
		if fs.Changed(name) {
			return k8sPlan{}, usageErr("sweep --%s: the manifests set it (the run's directory on the results volume); drop it", name)
		}
	}
	if fs.Changed("api-key") {
		return k8sPlan{}, usageErr("sweep --api-key would write the key into the manifests: keep it in a Secret and give goodput k8s --api-key-secret SECRET:KEY")
	}
	if f.shards > 1 {
		return k8sPlan{}, usageErr("--shards %d: a sweep measures its loads one after another from one process; use --shards 1, or shard each load as a bench run", f.shards)
	}
	o.Shards = 1
	drop := map[string]bool{}
	virtual, _ := fs.GetBool("virtual")
	if !fs.Changed("base-url") && !virtual {
		var bf benchFlags
		bf.simGPU, _ = fs.GetString("sim-gpu")
		bf.simModel, _ = fs.GetString("sim-model")
		bf.simProfile, _ = fs.GetString("sim-profile")
		bf.simTP, _ = fs.GetInt("sim-tensor-parallel-size")
		bf.simFaults, _ = fs.GetStringArray("sim-fault")
		bf.simSeed, _ = fs.GetUint64("sim-seed")
		sim, err := simForK8s(&bf)
		if err != nil {
			return k8sPlan{}, err
		}
		o.Sim = sim
		for _, name := range []string{"sim-gpu", "sim-model", "sim-profile", "sim-tensor-parallel-size", "sim-fault", "sim-seed"} {
			drop[name] = true
		}
	}
	if path, _ := fs.GetString("dataset-path"); path != "" && !workload.IsURL(path) {
		drop["dataset-path"] = true
		if f.datasetClaim != "" {
			o.Dataset = &kube.Dataset{Claim: f.datasetClaim, Path: path}
		} else {
			b, err := readConfigMapDataset(path)
			if err != nil {
				return k8sPlan{}, err
			}
			o.Dataset = &kube.Dataset{File: filepath.Base(path), Content: b}
		}
	}
	o.Command = append([]string{"sweep"}, dropFlags(fs, args, drop)...)
	// A sweep's length is its points': the merge step is not there to
	// wait, and a sweep is sized as one stream per concurrency it reaches.
	maxc, _ := fs.GetInt("auto-max-concurrency")
	return k8sPlan{streams: max(1, maxc), latency: kube.LatencyBudget(nil, 0), span: time.Hour}, nil
}

// readCommand parses a command line with c, running it with its output
// discarded; its errors become usage errors that name the command.
func readCommand(c *cobra.Command, name string, args []string) error {
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	if err := c.Execute(); err != nil {
		var ee *ExitError
		if errors.As(err, &ee) && ee.Code == ExitUsage {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the %s command: %w", name, ee.Err)}
		}
		return usageErr("the %s command: %v", name, err)
	}
	return nil
}

// dropFlags returns args less the flags named in drop (with their values),
// keeping everything else as the user wrote it.
func dropFlags(fs *pflag.FlagSet, args []string, drop map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		var fl *pflag.Flag
		inline := false
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			fl, inline = fs.Lookup(name), hasValue
		case strings.HasPrefix(a, "-") && len(a) >= 2:
			fl, inline = fs.ShorthandLookup(a[1:2]), len(a) > 2
		}
		if fl == nil {
			out = append(out, a)
			continue
		}
		n := 1
		if !inline && fl.NoOptDefVal == "" && i+1 < len(args) {
			n = 2 // the value is the next argument
		}
		if !drop[fl.Name] {
			out = append(out, args[i:i+n]...)
		}
		i += n - 1
	}
	return out
}

// k8sComment heads the manifests: what they run, when, and how to follow.
func k8sComment(o kube.Options, command []string, streams int, start, now time.Time) string {
	ns := ""
	if o.Namespace != "" {
		ns = " -n " + o.Namespace
	}
	var b strings.Builder
	what := fmt.Sprintf("%d shards", o.Shards)
	if o.Shards == 1 {
		what = "one pod"
	}
	fmt.Fprintf(&b, "goodput k8s: %s of\n  goodput %s\n", what, shellJoin(command))
	switch {
	case o.Command[0] == "sweep":
	case start.IsZero():
		fmt.Fprintf(&b, "Start: the shards start when ready; set %s in the ConfigMap %s to agree on one\n", kube.KeyStartAt, o.RunConfigName())
	default:
		fmt.Fprintf(&b, "Start: the shards start at %s (%v after this was written): apply before then\n", start.Format(time.RFC3339), start.Sub(now).Round(time.Second))
	}
	fmt.Fprintf(&b, "Each shard: about %d streams in flight; requests %s CPU, %s memory\n", streams, o.Resources.CPU, o.Resources.Memory)
	if o.Sim != nil {
		fmt.Fprintf(&b, "Target: an in-cluster goodput sim at %s (a model of one GPU, for trying the manifests)\n", o.SimURL())
	}
	job := o.MergeJobName()
	if o.Command[0] == "sweep" {
		job = o.Name
	}
	fmt.Fprintf(&b, "Follow: kubectl%s logs -f job/%s\n", ns, job)
	fmt.Fprintf(&b, "Results: claim %s, directory /%s (merged.jsonl, report.html, every shard's records)\n", o.ResultsClaim(), o.Name)
	return b.String()
}

// shellJoin writes args as a shell would read them back, quoting those
// with characters the shell treats specially.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// readConfigMapDataset reads a dataset file that the manifests carry in a
// ConfigMap, at most a byte more than one holds: a larger one (or a
// device without end) is refused, with its size where it has one, before
// it is read whole.
func readConfigMapDataset(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("--dataset-path: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, kube.MaxConfigMapBytes+1))
	if err != nil {
		return nil, usageErr("--dataset-path: %v", err)
	}
	if len(b) > kube.MaxConfigMapBytes {
		size := fmt.Sprintf("more than %d", kube.MaxConfigMapBytes)
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = strconv.FormatInt(fi.Size(), 10)
		}
		return nil, usageErr("--dataset-path %s: the dataset is %s bytes, more than a ConfigMap holds (%d): put it on a volume and give --dataset-claim", path, size, kube.MaxConfigMapBytes)
	}
	return b, nil
}
