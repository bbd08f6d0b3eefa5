package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/goodput-dev/goodput/internal/kubetest"
)

func future() string {
	return time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
}

// The command after -- is run in every shard pod as written, with the
// shard's flags added; gates and the SLO go to the merge.
func TestK8sManifests(t *testing.T) {
	start := future()
	out, errOut, code := run(t, "", "k8s", "--shards", "4", "--start-at", start, "--name", "load-a", "--namespace", "bench",
		"--api-key-secret", "openai:key", "--node-selector", "pool=loadgen", "--toleration", "dedicated=loadgen:NoSchedule",
		"--", "bench", "--base-url", "http://vllm:8000", "--request-rate", "40", "--num-prompts", "8000",
		"--random-output-len", "128", "--gate", "p99(ttft)<=500ms", "--goodput", "ttft:500", "tpot:50", "--seed", "7")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := kubetest.Decode(t, []byte(out))
	want := []string{"ConfigMap/load-a-run", "PersistentVolumeClaim/load-a-results", "Job/load-a", "Job/load-a-merge"}
	if !slices.Equal(got.Order, want) {
		t.Fatalf("objects %v, want %v", got.Order, want)
	}
	shard := got.Jobs["load-a"].Spec.Template.Spec
	kubetest.CheckPod(t, "shard", shard)
	wantArgs := []string{"bench", "--base-url", "http://vllm:8000", "--request-rate", "40", "--num-prompts", "8000",
		"--random-output-len", "128", "--goodput", "ttft:500", "tpot:50", "--seed", "7",
		"--shards", "4", "--start-at=$(GOODPUT_START_AT)", "--result-dir", "/results/$(GOODPUT_RUN)"}
	if args := shard.Containers[0].Args; !slices.Equal(args, wantArgs) {
		t.Errorf("shard args %q\nwant %q", args, wantArgs)
	}
	merge := got.Jobs["load-a-merge"].Spec.Template.Spec.Containers[0].Args
	if !slices.Equal(merge[len(merge)-4:], []string{"--goodput", "ttft:500 tpot:50", "--gate", "p99(ttft)<=500ms"}) {
		t.Errorf("merge args %q", merge)
	}
	if got.ConfigMaps["load-a-run"].Data["start-at"] != start {
		t.Errorf("start-at %q, want %q", got.ConfigMaps["load-a-run"].Data["start-at"], start)
	}
	if e := shard.Containers[0].Env[3]; e.Name != "OPENAI_API_KEY" || e.ValueFrom.SecretKeyRef.Name != "openai" || e.ValueFrom.SecretKeyRef.Key != "key" {
		t.Errorf("api key env %+v", e)
	}
	if shard.NodeSelector["pool"] != "loadgen" || shard.Tolerations[0].Value != "loadgen" {
		t.Errorf("placement %+v %+v", shard.NodeSelector, shard.Tolerations)
	}
	// 40 req/s over 4 shards, each request 500 ms + 127 × 50 ms: 137 streams.
	if r := shard.Containers[0].Resources.Requests; r.Cpu().String() != "700m" || r.Memory().String() != "192Mi" {
		t.Errorf("requests %v", r)
	}
	for _, line := range []string{
		"# goodput k8s: 4 shards of\n#   goodput bench --base-url http://vllm:8000 --request-rate 40 --num-prompts 8000 --random-output-len 128 --gate 'p99(ttft)<=500ms' --goodput ttft:500 tpot:50 --seed 7\n",
		"# Start: the shards start at " + start,
		"# Each shard: about 137 streams in flight; requests 700m CPU, 192Mi memory\n",
		"# Follow: kubectl -n bench logs -f job/load-a-merge\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("the heading lacks %q:\n%s", line, out[:strings.Index(out, "---")])
		}
	}
}

// With no --base-url the shards load an in-cluster simulator built from
// the command's --sim-* flags; a local dataset travels in a ConfigMap.
func TestK8sSimulatorAndDataset(t *testing.T) {
	out, errOut, code := run(t, "", "k8s", "--shards", "2", "--name", "try", "--", "bench", "--request-rate", "10",
		"--num-prompts", "100", "--sim-gpu", "A100", "--sim-seed", "3", "--dataset-name", "custom",
		"--dataset-path", "../../workload/testdata/custom.jsonl")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := kubetest.Decode(t, []byte(out))
	sim := got.Deployments["try-sim"].Spec.Template.Spec.Containers[0].Args
	if !slices.Equal(sim, []string{"sim", "--host", "0.0.0.0", "--port", "8000", "--gpu", "A100", "--seed", "3"}) {
		t.Errorf("sim args %q", sim)
	}
	args := got.Jobs["try"].Spec.Template.Spec.Containers[0].Args
	want := []string{"bench", "--request-rate", "10", "--num-prompts", "100", "--dataset-name", "custom",
		"--base-url", "http://try-sim:8000", "--dataset-path", "/dataset/custom.jsonl", "--shards", "2"}
	if !slices.Equal(args[:len(want)], want) {
		t.Errorf("shard args %q\nwant prefix %q", args, want)
	}
	b, _ := os.ReadFile("../../workload/testdata/custom.jsonl")
	if got.ConfigMaps["try-dataset"].Data["custom.jsonl"] != string(b) {
		t.Error("the dataset ConfigMap does not hold the file")
	}
	if _, ok := got.Services["try-sim"]; !ok {
		t.Error("no Service for the simulator")
	}
	// The default start is a little after now.
	startAt, err := time.Parse(time.RFC3339, got.ConfigMaps["try-run"].Data["start-at"])
	if d := time.Until(startAt); err != nil || d < 100*time.Second || d > 125*time.Second {
		t.Errorf("start-at %v (%v from now), want about 2 minutes", startAt, d)
	}
}

// A txt-slices text named by URL is fetched by every shard, so it stays
// the shards' --dataset-path and travels in no ConfigMap; the plan checks
// that it can be fetched.
func TestK8sTextByURL(t *testing.T) {
	text, err := os.ReadFile("../../workload/testdata/txt_slices_small.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(text) }))
	defer srv.Close()
	url := srv.URL + "/book.txt"
	out, errOut, code := run(t, "", "k8s", "--shards", "2", "--name", "tx", "--", "bench", "--base-url", "http://vllm:8000",
		"--request-rate", "10", "--num-prompts", "100", "--dataset-name", "txt-slices", "--dataset-path", url)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := kubetest.Decode(t, []byte(out))
	args := got.Jobs["tx"].Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--dataset-path"); i < 0 || args[i+1] != url {
		t.Errorf("shard args %q: want --dataset-path %s", args, url)
	}
	if _, ok := got.ConfigMaps["tx-dataset"]; ok {
		t.Error("a dataset ConfigMap for a URL")
	}
	_, errOut, code = run(t, "", "k8s", "--shards", "2", "--name", "tx", "--dataset-claim", "d", "--", "bench",
		"--base-url", "http://vllm:8000", "--dataset-name", "txt-slices", "--dataset-path", url)
	if code != ExitUsage || !strings.Contains(errOut, "is a URL") {
		t.Errorf("a claim beside a URL: exit %d, %s", code, errOut)
	}
}

// vLLM's --host and --port name the server as --base-url does: the
// shards load it, and no simulator is deployed in its place.
func TestK8sHostAndPortNameTheServer(t *testing.T) {
	out, errOut, code := run(t, "", "k8s", "--shards", "2", "--name", "vl", "--", "bench", "--host", "vllm.serving",
		"--port", "8000", "--request-rate", "10", "--num-prompts", "100")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := kubetest.Decode(t, []byte(out))
	if len(got.Deployments) != 0 || len(got.Services) != 0 {
		t.Errorf("objects %v: want no simulator for a named server", got.Order)
	}
	args := got.Jobs["vl"].Spec.Template.Spec.Containers[0].Args
	want := []string{"bench", "--host", "vllm.serving", "--port", "8000", "--request-rate", "10", "--num-prompts", "100", "--shards", "2"}
	if !slices.Equal(args[:len(want)], want) || slices.Contains(args, "--base-url") {
		t.Errorf("shard args %q\nwant prefix %q and no --base-url", args, want)
	}
	if strings.Contains(out, "in-cluster goodput sim") {
		t.Errorf("the heading still names an in-cluster simulator:\n%s", out[:min(len(out), 600)])
	}
}

func TestK8sSweep(t *testing.T) {
	out, errOut, code := run(t, "", "k8s", "--name", "sw", "--", "sweep", "--base-url", "http://vllm:8000", "--concurrency", "1,4,16", "--num-prompts", "200")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := kubetest.Decode(t, []byte(out))
	j := got.Jobs["sw"]
	if len(got.Jobs) != 1 || *j.Spec.Completions != 1 {
		t.Fatalf("objects %v", got)
	}
	args := j.Spec.Template.Spec.Containers[0].Args
	want := []string{"sweep", "--base-url", "http://vllm:8000", "--concurrency", "1,4,16", "--num-prompts", "200",
		"--result-dir", "/results/$(GOODPUT_RUN)", "--resume", "--report", "/results/$(GOODPUT_RUN)/report.html"}
	if !slices.Equal(args, want) {
		t.Errorf("sweep args %q\nwant %q", args, want)
	}
}

func TestK8sUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"k8s", "--shards", "2"}, "give the goodput command to run after --"},
		{[]string{"k8s", "--shards", "2", "extra", "--", "bench"}, "give the goodput command to run after --"},
		{[]string{"k8s", "--", "analyze", "x.jsonl"}, `runs bench or sweep, not "analyze"`},
		{[]string{"k8s", "--", "bench", "--base-url", "http://a:1"}, "give --shards"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--shard", "1"}, "bench --shard: each pod takes its shard"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--result-dir", "r"}, "bench --result-dir"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--run-name", "r"}, "bench --run-name"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--api-key", "sk-1"}, "--api-key would write the key into the manifests"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--header", "Authorization=Bearer sk-1"}, "--header Authorization: its value would be in the manifests"},
		// A reference to no Secret's variable is passed as written, not expanded.
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--header", "Authorization=Bearer $(TOKEN)"}, "--header Authorization: its value would be in the manifests"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--shards", "3"}, "--shards 2 contradicts the command's --shards 3"},
		{[]string{"k8s", "--shards", "2", "--start-at", "2020-01-01T00:00:00Z", "--", "bench", "--base-url", "http://a:1"}, "is in the past"},
		{[]string{"k8s", "--shards", "2", "--start-at", "soon", "--", "bench", "--base-url", "http://a:1"}, `--start-at "soon"`},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--request-rate", "fast"}, "the bench command: --request-rate"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--no-such-flag"}, "the bench command: bench: --no-such-flag: unknown flag"},
		{[]string{"k8s", "--shards", "8", "--", "bench", "--base-url", "http://a:1", "--max-concurrency", "4"}, "--shards 8 exceeds --max-concurrency 4"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--dataset-name", "custom", "--dataset-path", "/no/such.jsonl"}, "/no/such.jsonl"},
		{[]string{"k8s", "--shards", "2", "--dataset-claim", "d", "--", "bench", "--base-url", "http://a:1"}, "--dataset-claim: the command names no --dataset-path"},
		{[]string{"k8s", "--shards", "2", "--", "bench", "--sim-profile", "p.yaml"}, "--sim-profile: the in-cluster simulator takes built-in profiles only"},
		{[]string{"k8s", "--shards", "2", "--", "sweep", "--base-url", "http://a:1", "--concurrency", "1,2"}, "a sweep measures its loads one after another"},
		{[]string{"k8s", "--", "sweep", "--base-url", "http://a:1", "--concurrency", "1,2", "--result-dir", "x"}, "sweep --result-dir"},
		{[]string{"k8s", "--shards", "2", "--name", "Bad_Name", "--", "bench", "--base-url", "http://a:1"}, `--name "Bad_Name"`},
		{[]string{"k8s", "--shards", "2", "--toleration", "k=v:Never", "--", "bench", "--base-url", "http://a:1"}, `effect "Never"`},
		{[]string{"k8s", "--shards", "2", "--secret-env", "KEY", "--", "bench", "--base-url", "http://a:1"}, "--secret-env"},
		{[]string{"k8s", "--shards", "2", "--node-selector", "pool", "--", "bench", "--base-url", "http://a:1"}, "--node-selector"},
		{[]string{"k8s", "--shards", "2", "--kustomize", "d", "--start-at", "2030-01-01T00:00:00Z", "--", "bench", "--base-url", "http://a:1"}, "a Kustomize base has no start"},
	}
	for _, c := range cases {
		_, errOut, code := run(t, "", c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want 2, %q", c.args, code, errOut, c.want)
		}
	}
	// A dataset too large for a ConfigMap is refused with its size, and
	// a device without end before it is read whole.
	big := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 1100000), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		big:         "the dataset is 1100000 bytes, more than a ConfigMap holds (1032192): put it on a volume and give --dataset-claim",
		"/dev/zero": "the dataset is more than 1032192 bytes, more than a ConfigMap holds",
	} {
		_, errOut, code := run(t, "", "k8s", "--shards", "2", "--", "bench", "--base-url", "http://a:1", "--dataset-name", "custom", "--dataset-path", path)
		if code != ExitUsage || !strings.Contains(errOut, "--dataset-path "+path+": "+want) {
			t.Errorf("%s: exit %d, %q; want 2, %q", path, code, errOut, want)
		}
	}
	// A header that names a Secret's variable is fine.
	_, errOut, code := run(t, "", "k8s", "--shards", "2", "--secret-env", "TOKEN=gw:token", "--", "bench", "--base-url", "http://a:1", "--header", "Authorization=Bearer $(TOKEN)")
	if code != ExitOK {
		t.Errorf("a header from a Secret: exit %d %s", code, errOut)
	}
}

// Kubernetes expands $(VAR) in a container's args and reads $$ as $: the
// shard pods must still run the command as given, but for the $(ENV) of a
// --secret-env variable, and goodput's own references.
func TestK8sArgsReachBenchAsGiven(t *testing.T) {
	start := future()
	body := `{"stop":["$$","$(NODE_NAME)"]}`
	out, errOut, code := run(t, "", "k8s", "--shards", "2", "--start-at", start, "--name", "load-b", "--secret-env", "TOKEN=gw:token",
		"--", "bench", "--base-url", "http://x:8000", "--extra-body", body, "--header", "X-Key=$(TOKEN)", "--request-rate", "5")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	c := kubetest.Decode(t, []byte(out)).Jobs["load-b"].Spec.Template.Spec.Containers[0]
	// The pod's environment when it runs.
	values := map[string]string{"NODE_NAME": "node-7", "GOODPUT_START_AT": start, "GOODPUT_RUN": "load-b", "TOKEN": "s3cret"}
	defined := map[string]bool{}
	for _, e := range c.Env {
		if _, ok := values[e.Name]; !ok {
			t.Fatalf("the test lacks a value of %s", e.Name)
		}
		defined[e.Name] = true
	}
	var args []string
	for _, a := range c.Args {
		args = append(args, kubetest.Expand(a, func(n string) (string, bool) { return values[n], defined[n] }))
	}
	want := []string{"bench", "--base-url", "http://x:8000", "--extra-body", body, "--header", "X-Key=s3cret", "--request-rate", "5",
		"--shards", "2", "--start-at=" + start, "--result-dir", "/results/load-b"}
	if !slices.Equal(args, want) {
		t.Errorf("the pod runs\n%q\nwant\n%q", args, want)
	}
}

// Many streams per shard are warned about; -o writes a file.
func TestK8sWarnsAndWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.yaml")
	out, errOut, code := run(t, "", "k8s", "--shards", "2", "-o", path, "--", "bench", "--base-url", "http://a:1", "--max-concurrency", "4000", "--num-prompts", "10000")
	if code != ExitOK || out != "" || !strings.Contains(errOut, "about 2000 streams per shard") || !strings.Contains(errOut, "Wrote "+path) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := kubetest.Decode(t, b); len(got.Jobs) != 2 {
		t.Errorf("objects %v", got)
	}
}

// The Kustomize base in the repository is what goodput k8s writes for the
// command below: regenerate it with go test ./internal/cli -run Kustomize -update.
var baseCommand = []string{"k8s", "--name", "goodput", "--shards", "4", "--image", "ghcr.io/goodput-dev/goodput:latest",
	"--", "bench", "--request-rate", "40", "--num-prompts", "4000", "--random-input-len", "512", "--random-output-len", "128", "--ignore-eos"}

const baseDir = "../../deploy/kustomize"

func TestKustomizeBaseIsGenerated(t *testing.T) {
	dir := t.TempDir()
	if *update {
		dir = baseDir
	}
	args := append([]string{"k8s", "--kustomize", dir}, baseCommand[1:]...)
	out, errOut, code := run(t, "", args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	written := strings.Count(out, "Wrote ")
	entries, err := os.ReadDir(baseDir)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var yamls int
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		yamls++
		want, _ := os.ReadFile(filepath.Join(baseDir, e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s differs from what goodput k8s writes (go test ./internal/cli -run Kustomize -update):\n%s", e.Name(), got)
		}
		if e.Name() != "kustomization.yaml" {
			kubetest.Decode(t, want)
		}
	}
	if yamls != written || written != 5 {
		t.Errorf("%d files written, %d YAML files in %s, want 5", written, yamls, baseDir)
	}
}

// Kustomize builds the base, and what it builds is what goodput k8s prints
// for the same command: the same objects, the run's ConfigMap under its
// hashed name and every reference to it rewritten.
func TestKustomizeBuildsTheBase(t *testing.T) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), baseDir)
	if err != nil {
		t.Fatal(err)
	}
	built, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	kz := kubetest.Decode(t, built)
	var runName string
	for name := range kz.ConfigMaps {
		if strings.HasPrefix(name, "goodput-run-") {
			runName = name
		}
	}
	if runName == "" || len(kz.ConfigMaps) != 1 {
		t.Fatalf("ConfigMaps %v: want the run's, generated", kz.Order)
	}
	out, errOut, code := run(t, "", append([]string{"k8s", "--start-delay", "0s"}, baseCommand[1:]...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	direct := kubetest.Decode(t, []byte(out))
	if len(direct.Jobs) != len(kz.Jobs) || len(direct.Deployments) != len(kz.Deployments) || len(direct.Services) != len(kz.Services) || len(direct.Claims) != len(kz.Claims) {
		t.Fatalf("kustomize built %v, goodput k8s printed %v", kz.Order, direct.Order)
	}
	for name, j := range kz.Jobs {
		for i, e := range j.Spec.Template.Spec.Containers[0].Env {
			if r := e.ValueFrom; r != nil && r.ConfigMapKeyRef != nil {
				if r.ConfigMapKeyRef.Name != runName {
					t.Errorf("Job %s: %s reads ConfigMap %s, not the generated %s", name, e.Name, r.ConfigMapKeyRef.Name, runName)
				}
				j.Spec.Template.Spec.Containers[0].Env[i].ValueFrom.ConfigMapKeyRef.Name = "goodput-run"
			}
		}
		d := direct.Jobs[name]
		if d == nil || !reflect.DeepEqual(d.Spec, j.Spec) {
			t.Errorf("Job %s: kustomize built\n%+v\ngoodput k8s printed\n%+v", name, j.Spec, d)
		}
	}
	for name, d := range kz.Deployments {
		if !reflect.DeepEqual(d.Spec, direct.Deployments[name].Spec) {
			t.Errorf("Deployment %s differs", name)
		}
	}
}
