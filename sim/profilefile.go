package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// A profile file (YAML, or JSON, which YAML reads too) describes hardware or
// a model the built-in tables lack, and may recalibrate the cost model:
//
//	gpu: H100                 # a built-in name, or an object:
//	# gpu: {name: B300, memory_gib: 288, bandwidth_tbps: 8, tflops: 2250,
//	#       fp8_tflops: 4500, link_gbps: 900, allreduce_latency_us: 5,
//	#       mbu: 0.8, mfu: 0.35}
//	model:
//	  name: my-13b
//	  layers: 40
//	  hidden_size: 5120
//	  num_heads: 40
//	  num_kv_heads: 40
//	  head_dim: 128
//	  params_b: 13
//	  dtype_bytes: 2
//	  max_model_len: 4096
//	  vocab_size: 32000       # optional: see Model for the rest (experts,
//	  intermediate_size: 13824 # sliding window, MLA, weight formats)
//	tensor_parallel_size: 2
//	kv_cache_dtype: fp8       # vLLM's --kv-cache-dtype
//	engine:                   # the server's limits, vLLM's names; flags override them
//	  max_num_seqs: 256
//	  max_num_batched_tokens: 2048
//	calibration:              # any subset; the rest stays as it was
//	  mfu: 0.45               # override the GPU's own efficiencies
//	  mbu: 0.75
//	  attention_efficiency: 1.5
//	  step_overhead: 300us
//	  seq_overhead: 30us
//	  request_overhead: 1ms
//	  front_end_service: 1ms
//	  front_end_per_token: 2us
//	  chat_template: 20ms
//
// Every key is optional; what the file leaves out comes from the profile it
// is applied to.
type profileFile struct {
	GPU            yaml.Node        `yaml:"gpu"`
	Model          yaml.Node        `yaml:"model"`
	TensorParallel *int             `yaml:"tensor_parallel_size"`
	KVCacheDType   *string          `yaml:"kv_cache_dtype"`
	Engine         *EngineSettings  `yaml:"engine"`
	Calibration    *calibrationFile `yaml:"calibration"`
}

type calibrationFile struct {
	MFU                 *float64       `yaml:"mfu,omitempty"`
	MBU                 *float64       `yaml:"mbu,omitempty"`
	AttentionEfficiency *float64       `yaml:"attention_efficiency,omitempty"`
	StepOverhead        *time.Duration `yaml:"step_overhead,omitempty"`
	SeqOverhead         *time.Duration `yaml:"seq_overhead,omitempty"`
	RequestOverhead     *time.Duration `yaml:"request_overhead,omitempty"`
	FrontEndService     *time.Duration `yaml:"front_end_service,omitempty"`
	FrontEndPerToken    *time.Duration `yaml:"front_end_per_token,omitempty"`
	ChatTemplate        *time.Duration `yaml:"chat_template,omitempty"`
}

// LoadProfile reads the profile file at path and applies it to base (see
// ParseProfile).
func LoadProfile(path string, base Profile) (Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProfileBytes+1))
	switch {
	case err != nil:
		return Profile{}, fmt.Errorf("profile: %w", err)
	case len(data) > maxProfileBytes:
		return Profile{}, fmt.Errorf("%s: larger than %d KiB, which no profile is: not a profile file", path, maxProfileBytes>>10)
	}
	return ParseProfile(path, data, base)
}

// maxProfileBytes bounds a profile file, a few lines of YAML, so that a
// wrong path (a model's weights, /dev/zero) is refused, not read whole.
const maxProfileBytes = 1 << 20

// ParseProfile applies the profile file data to base and returns the result.
// name (usually the file's path) prefixes errors, which give the line at
// fault. The result is not validated: New and Resolve do that.
func ParseProfile(name string, data []byte, base Profile) (Profile, error) {
	var f profileFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Profile{}, fmt.Errorf("%s: the profile is empty", name)
		}
		return Profile{}, fmt.Errorf("%s: %w", name, err)
	}
	p := base
	var err error
	if !f.GPU.IsZero() {
		if p.GPU, err = decodeGPU(&f.GPU); err != nil {
			return Profile{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if !f.Model.IsZero() {
		if p.Model, err = decodeModel(&f.Model); err != nil {
			return Profile{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if f.TensorParallel != nil {
		if *f.TensorParallel < 1 {
			return Profile{}, fmt.Errorf("%s: tensor_parallel_size %d: must be at least 1", name, *f.TensorParallel)
		}
		p.TensorParallel = *f.TensorParallel
	}
	if f.KVCacheDType != nil {
		if !ValidKVCacheDType(*f.KVCacheDType) {
			return Profile{}, fmt.Errorf("%s: kv_cache_dtype %q: want one of %s", name, *f.KVCacheDType, KVCacheDTypes)
		}
		p.KVCacheDType = *f.KVCacheDType
	}
	if e := f.Engine; e != nil {
		if e.MaxNumSeqs < 0 || e.MaxNumBatchedTokens < 0 || e.MaxModelLen < 0 || e.BlockSize < 0 || !(e.GPUMemoryUtilization >= 0 && e.GPUMemoryUtilization <= 1) {
			return Profile{}, fmt.Errorf("%s: engine %+v: settings must not be negative, and gpu_memory_utilization at most 1", name, *e)
		}
		p.Engine = *e
	}
	if c := f.Calibration; c != nil {
		if p.Calibration == (Calibration{}) {
			p.Calibration = DefaultCalibration
		}
		set(&p.Calibration.MFU, c.MFU)
		set(&p.Calibration.MBU, c.MBU)
		set(&p.Calibration.AttentionEfficiency, c.AttentionEfficiency)
		set(&p.Calibration.StepOverhead, c.StepOverhead)
		set(&p.Calibration.SeqOverhead, c.SeqOverhead)
		set(&p.Calibration.RequestOverhead, c.RequestOverhead)
		set(&p.Calibration.FrontEndService, c.FrontEndService)
		set(&p.Calibration.FrontEndPerToken, c.FrontEndPerToken)
		set(&p.Calibration.ChatTemplate, c.ChatTemplate)
	}
	return p, nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func decodeGPU(n *yaml.Node) (GPU, error) {
	if n.Kind == yaml.ScalarNode {
		g, err := LookupGPU(n.Value)
		if err != nil {
			return GPU{}, fmt.Errorf("line %d: gpu: %w", n.Line, err)
		}
		return g, nil
	}
	var g GPU
	if err := decodeStrict(n, "gpu", &g); err != nil {
		return GPU{}, err
	}
	return g, nil
}

func decodeModel(n *yaml.Node) (Model, error) {
	if n.Kind == yaml.ScalarNode {
		m, err := LookupModel(n.Value)
		if err != nil {
			return Model{}, fmt.Errorf("line %d: model: %w", n.Line, err)
		}
		return m, nil
	}
	var m Model
	if err := decodeStrict(n, "model", &m); err != nil {
		return Model{}, err
	}
	return m, nil
}

// decodeStrict decodes mapping n into the struct v points to, rejecting
// keys that v has no yaml tag for (Node.Decode alone would ignore them).
func decodeStrict(n *yaml.Node, what string, v any) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s: want a built-in name or a mapping of fields", n.Line, what)
	}
	known := yamlKeys(reflect.TypeOf(v).Elem())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !known[k.Value] {
			return fmt.Errorf("line %d: %s: unknown field %q (known: %s)", k.Line, what, k.Value, sortedKeys(known))
		}
	}
	if err := n.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func yamlKeys(t reflect.Type) map[string]bool {
	out := make(map[string]bool)
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out[tag] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// FormatProfile writes p as a profile file that ParseProfile reads back to
// p: the GPU and model by their built-in names when they are the built-in
// ones, else in full, and every calibration figure. comment, when not
// empty, heads the file as comment lines.
func FormatProfile(p Profile, comment string) ([]byte, error) {
	type out struct {
		GPU            any             `yaml:"gpu"`
		Model          any             `yaml:"model"`
		TensorParallel int             `yaml:"tensor_parallel_size"`
		KVCacheDType   string          `yaml:"kv_cache_dtype,omitempty"`
		Engine         *EngineSettings `yaml:"engine,omitempty"`
		Calibration    calibrationFile `yaml:"calibration"`
	}
	o := out{GPU: p.GPU, Model: p.Model, TensorParallel: max(p.TensorParallel, 1), KVCacheDType: p.KVCacheDType}
	if p.Engine != (EngineSettings{}) {
		o.Engine = &p.Engine
	}
	if g, err := LookupGPU(p.GPU.Name); err == nil && g == p.GPU {
		o.GPU = g.Name
	}
	if m, err := LookupModel(p.Model.Name); err == nil && m == p.Model {
		o.Model = m.Name
	}
	c := p.Calibration
	o.Calibration = calibrationFile{
		AttentionEfficiency: &c.AttentionEfficiency,
		StepOverhead:        &c.StepOverhead, SeqOverhead: &c.SeqOverhead, RequestOverhead: &c.RequestOverhead,
		FrontEndService: &c.FrontEndService, FrontEndPerToken: &c.FrontEndPerToken, ChatTemplate: &c.ChatTemplate,
	}
	if c.MFU > 0 {
		o.Calibration.MFU = &c.MFU
	}
	if c.MBU > 0 {
		o.Calibration.MBU = &c.MBU
	}
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(comment), "\n") {
		if line != "" {
			b.WriteString("# " + line + "\n")
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(o); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
