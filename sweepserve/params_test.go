package sweepserve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func item(t *testing.T, js string) Item {
	t.Helper()
	var o Object
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	return Item{Params: o}
}

// An option the command has gets the new value where it stands, in
// whichever of vLLM's spellings it was written; any other is appended;
// booleans set or unset a switch, in the command's own way.
func TestApplySetsOptionsInPlace(t *testing.T) {
	base := []string{"vllm", "serve", "m", "--max-num-seqs", "8", "--block-size=16", "--enable-prefix-caching", "--port", "8001"}
	for _, tt := range []struct {
		name   string
		params string
		bools  Bools
		want   string
	}{
		{"underscores match dashes", `{"max_num_seqs": 64}`, Negated,
			"vllm serve m --max-num-seqs 64 --block-size=16 --enable-prefix-caching --port 8001"},
		{"--key=value stays in that form", `{"block-size": 32}`, Negated,
			"vllm serve m --max-num-seqs 8 --block-size=32 --enable-prefix-caching --port 8001"},
		{"a new option is appended, in the file's order", `{"max_num_batched_tokens": 4096, "gpu_memory_utilization": 0.85}`, Negated,
			"vllm serve m --max-num-seqs 8 --block-size=16 --enable-prefix-caching --port 8001 --max-num-batched-tokens 4096 --gpu-memory-utilization 0.85"},
		{"false negates a switch, vLLM's way", `{"enable_prefix_caching": false}`, Negated,
			"vllm serve m --max-num-seqs 8 --block-size=16 --no-enable-prefix-caching --port 8001"},
		{"false unsets a switch, goodput's way", `{"enable_prefix_caching": false}`, Valued,
			"vllm serve m --max-num-seqs 8 --block-size=16 --enable-prefix-caching=false --port 8001"},
		{"true appends a switch", `{"enforce_eager": true}`, Negated,
			"vllm serve m --max-num-seqs 8 --block-size=16 --enable-prefix-caching --port 8001 --enforce-eager"},
		{"a nested field keeps its name after the dot", `{"compilation_config.cudagraph_mode": "FULL", "speculative_config.enabled": true}`, Negated,
			"vllm serve m --max-num-seqs 8 --block-size=16 --enable-prefix-caching --port 8001 --compilation-config.cudagraph_mode FULL --speculative-config.enabled=true"},
		{"an object goes as JSON", `{"kv_transfer_config": {"kv_connector": "X", "kv_role": "kv_both"}}`, Negated,
			`vllm serve m --max-num-seqs 8 --block-size=16 --enable-prefix-caching --port 8001 --kv-transfer-config {"kv_connector":"X","kv_role":"kv_both"}`},
		{"the name is no option", `{"_benchmark_name": "big", "max_num_seqs": 256}`, Negated,
			"vllm serve m --max-num-seqs 256 --block-size=16 --enable-prefix-caching --port 8001"},
	} {
		got := strings.Join(item(t, tt.params).Apply(base, tt.bools), " ")
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	// A negated switch already there is replaced, not doubled.
	neg := []string{"x", "--no-enable-prefix-caching", "--seed", "1"}
	if got := item(t, `{"enable_prefix_caching": true}`).Apply(neg, Negated); !slices.Equal(got, []string{"x", "--enable-prefix-caching", "--seed", "1"}) {
		t.Errorf("re-enabling a negated switch: %q", got)
	}
	if !slices.Equal(base, []string{"vllm", "serve", "m", "--max-num-seqs", "8", "--block-size=16", "--enable-prefix-caching", "--port", "8001"}) {
		t.Errorf("Apply changed its argument: %q", base)
	}
}

// Items are named as vLLM names its folders: the _benchmark_name, else
// key=value joined by "-", with Python's spelling of values.
func TestLabelsAndFolders(t *testing.T) {
	for _, tt := range []struct{ serve, bench, label, folder string }{
		{`{"max_num_seqs": 32, "max_num_batched_tokens": 1024}`, `{}`,
			"max_num_seqs=32-max_num_batched_tokens=1024", "SERVE--max_num_seqs=32-max_num_batched_tokens=1024"},
		{`{"_benchmark_name": "tp2"}`, `{"random_input_len": 128, "ignore_eos": true}`,
			"tp2", "SERVE--tp2-BENCH--random_input_len=128-ignore_eos=True"},
		{`{}`, `{"dataset_path": "data/../x.json"}`, "", "BENCH--dataset_path=data____x.json"},
		{`{}`, `{}`, "", ""},
	} {
		s, b := item(t, tt.serve), item(t, tt.bench)
		if got := s.Label(); got != tt.label {
			t.Errorf("Label of %s = %q, want %q", tt.serve, got, tt.label)
		}
		if got := comboName(s, b); got != tt.folder {
			t.Errorf("folder of %s × %s = %q, want %q", tt.serve, tt.bench, got, tt.folder)
		}
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A parameter file is a list of objects or an object of named ones; a
// mistake in it is named with the file, and the item or the line.
func TestReadParams(t *testing.T) {
	list, err := ReadParams(writeFile(t, "l.json", `[{"max_num_seqs": 32}, {"max_num_seqs": 64, "block_size": 32}]`))
	if err != nil || len(list) != 2 || list[1].Label() != "max_num_seqs=64-block_size=32" {
		t.Fatalf("list: %v %v", list, err)
	}
	named, err := ReadParams(writeFile(t, "n.json", `{"small": {"max_num_seqs": 8}, "big": {"max_num_seqs": 256}}`))
	if err != nil || len(named) != 2 || named[0].Label() != "small" || named[1].Text() != "max_num_seqs=256" {
		t.Fatalf("named: %v %v", named, err)
	}
	if got := named[1].Apply([]string{"vllm", "serve"}, Negated); !slices.Equal(got, []string{"vllm", "serve", "--max-num-seqs", "256"}) {
		t.Errorf("a named item applies its parameters only: %q", got)
	}
	for _, tt := range []struct{ text, want string }{
		{"[{\"a\": 1},\n {\"b\": 2,}]", "x.json:2:10: invalid character '}'"},
		{`[{"a": 1}, 5]`, "x.json: item 2: want an object of parameters"},
		{`{"n": 5}`, `x.json: "n": want an object of parameters`},
		{`[{"_benchmark_name": "a"}, {"_benchmark_name": "a"}]`, `x.json: items 1 and 2 are both named "a"`},
		{`[{"max_num_seqs": null}]`, "x.json: item 1: max_num_seqs is null"},
		{`[]`, "x.json: holds no parameter combination"},
		{`"x"`, "x.json: want a JSON list of parameter objects"},
	} {
		p := writeFile(t, "x.json", tt.text)
		_, err := ReadParams(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: %v, want %q", tt.text, err, tt.want)
		}
	}
}

// Linked parameters must both be set, to equal values: 32 and 32.0 agree.
func TestLinks(t *testing.T) {
	links, err := ParseLinks(" max_num_seqs=max_concurrency, max_model_len = random_input_len")
	if err != nil || !slices.Equal(links, []Link{{"max_num_seqs", "max_concurrency"}, {"max_model_len", "random_input_len"}}) {
		t.Fatalf("ParseLinks: %v %v", links, err)
	}
	one := links[:1]
	if !linked(item(t, `{"max_num_seqs": 32}`), item(t, `{"max-concurrency": 32.0}`), one) {
		t.Error("32 and 32.0 should agree")
	}
	if linked(item(t, `{"max_num_seqs": 32}`), item(t, `{"max_concurrency": 64}`), one) {
		t.Error("32 and 64 should not")
	}
	if linked(item(t, `{"max_num_seqs": 32}`), item(t, `{}`), one) {
		t.Error("a link to a parameter that is not set should not hold")
	}
	for _, bad := range []string{"a", "a=", "=b", "a=b=c"} {
		if _, err := ParseLinks(bad); err == nil || !strings.Contains(err.Error(), "want serve_key=bench_key") {
			t.Errorf("ParseLinks(%q): %v", bad, err)
		}
	}
}

// Where each kind of server listens when its command does not say, and
// how a wildcard host is reached.
func TestAddress(t *testing.T) {
	for _, tt := range []struct{ cmd, want string }{
		{"vllm serve m", "http://127.0.0.1:8000"},
		{"vllm serve m --port 8010 --host 0.0.0.0", "http://127.0.0.1:8010"},
		{"vllm serve m -p 8011", "http://127.0.0.1:8011"},
		{"vllm serve m --host=::", "http://[::1]:8000"},
		{"python -m vllm.entrypoints.openai.api_server --port=9000", "http://127.0.0.1:9000"},
		{"python3 -m sglang.launch_server --model-path m", "http://127.0.0.1:30000"},
		{"/opt/llama.cpp/llama-server -m x.gguf --host 10.0.0.5", "http://10.0.0.5:8080"},
		{"goodput sim --port 8123", "http://127.0.0.1:8123"},
		// A container is reached where its port is published.
		{"docker run --rm --gpus all -p 8001:8000 --ipc=host vllm/vllm-openai:latest --model m", "http://127.0.0.1:8001"},
		{"docker run -e HF_TOKEN=x -p 127.0.0.1:9000:30000 -v /models:/models lmsysorg/sglang python3 -m sglang.launch_server --model-path m",
			"http://127.0.0.1:9000"},
		{"podman run -it -p 7000:8080/tcp -p 9100:9100 ghcr.io/ggml-org/llama.cpp:server -m /m.gguf", "http://127.0.0.1:7000"},
		{"docker run --network host vllm/vllm-openai --model m --port 8003", "http://127.0.0.1:8003"},
		{"docker run -p 8010:8002 vllm/vllm-openai --model m --port 8002", "http://127.0.0.1:8010"},
		{"CUDA_VISIBLE_DEVICES=0,1 vllm serve m --port 8005", "http://127.0.0.1:8005"},
		{"env HF_HOME=/x VLLM_USE_V1=1 vllm serve m -p 8006", "http://127.0.0.1:8006"},
	} {
		if got := Address(strings.Fields(tt.cmd)); got != tt.want {
			t.Errorf("Address(%s) = %s, want %s", tt.cmd, got, tt.want)
		}
	}
	for cmd, want := range map[string]Kind{"/usr/bin/vllm serve m": VLLM, "goodput sim": Simulator, "goodput bench": Unknown,
		"sglang serve": SGLang, "llama-server -m x": LlamaCpp, "tgi-launcher": Unknown,
		"docker run --rm -p 8000:8000 vllm/vllm-openai --model m":                             VLLM,
		"docker run --name x -v /m:/m lmsysorg/sglang:latest python3 -m sglang.launch_server": SGLang,
		"docker container run ghcr.io/ggml-org/llama.cpp:server -m x.gguf":                    LlamaCpp,
		"docker run -p 8000:8000 my/image vllm serve m":                                       VLLM,
		"docker run -p 8080:80 ghcr.io/huggingface/text-generation-inference":                 Unknown,
		"docker ps": Unknown, "CUDA_VISIBLE_DEVICES=0 vllm serve m": VLLM, "env A=1 llama-server -m x": LlamaCpp,
		"env -i vllm serve m": Unknown} {
		if got := KindOf(strings.Fields(cmd)); got != want {
			t.Errorf("KindOf(%s) = %v, want %v", cmd, got, want)
		}
	}
}

// Objects keep their keys in order through a round trip, as Python's
// dicts do; a key given twice keeps its first place and its last value.
func TestObjectKeepsOrder(t *testing.T) {
	var o Object
	if err := json.Unmarshal([]byte(`{"z": 1, "a": {"q": [1, 2]}, "m": "x", "z": 3}`), &o); err != nil {
		t.Fatal(err)
	}
	o.Set("b", json.RawMessage(`true`))
	o.Set("a", json.RawMessage(`0.5`))
	b, err := json.Marshal(o)
	if err != nil || string(b) != `{"z":3,"a":0.5,"m":"x","b":true}` {
		t.Errorf("%s %v", b, err)
	}
	// null is no number (not 0), nor is text.
	o.Set("n", json.RawMessage(`null`))
	if x, ok := o.Number("n"); ok {
		t.Errorf("null read as the number %v", x)
	}
	if x, ok := o.Number("m"); ok {
		t.Errorf("a string read as the number %v", x)
	}
	if x, ok := o.Number("a"); !ok || x != 0.5 {
		t.Errorf("Number(a) = %v %v", x, ok)
	}
}
