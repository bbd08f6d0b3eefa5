package sweeprun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

// manifestSchema is the version of sweep-config.json.
const manifestSchema = 1

// manifestFile is sweep-config.json: the settings that decide what a
// measurement sends and to whom. A resumed sweep must match them, or its
// new points would not be comparable with the old. Metrics options (the
// SLO, the percentiles) are not among them: resumed points are recomputed
// from their records with the current ones.
type manifestFile struct {
	Schema   int               `json:"schema"`
	Settings map[string]string `json:"settings"`
}

// settings returns the manifest's settings for a sweep in mode.
func (r *Runner) settings(mode sweep.Mode) map[string]string {
	b := r.cfg.Bench
	w := b.Workload
	a := b.Arrival
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := map[string]string{
		"mode":               string(mode),
		"target":             r.target,
		"dataset":            w.Dataset,
		"dataset_path":       w.Path,
		"random_input_len":   strconv.Itoa(w.Random.InputLen),
		"random_output_len":  strconv.Itoa(w.Random.OutputLen),
		"random_range_ratio": num(w.Random.RangeRatio),
		"random_prefix_len":  strconv.Itoa(w.Random.PrefixLen),
		"custom_output_len":  strconv.Itoa(w.Custom.OutputLen),
		"disable_shuffle":    strconv.FormatBool(w.NoShuffle),
		"ignore_eos":         strconv.FormatBool(w.Request.IgnoreEOS),
		"min_tokens":         strconv.Itoa(w.Request.MinTokens),
		"max_tokens":         strconv.Itoa(w.Request.MaxTokens),
		"arrival":            string(a.Arrival),
		"burstiness":         num(a.Burstiness),
		"max_concurrency":    strconv.Itoa(a.MaxConcurrency),
		"num_prompts":        strconv.Itoa(a.NumPrompts),
		"duration":           a.Duration.String(),
		"min_rounds":         strconv.Itoa(r.cfg.MinRounds),
		"seed":               strconv.FormatUint(a.Seed, 10),
		"num_warmups":        strconv.Itoa(b.Warmups),
		"warmup_seconds":     b.WarmupTime.String(),
	}
	if w.Dataset == workload.DatasetTrace || w.Dataset == workload.DatasetTimedTrace {
		// Only a replay's manifest has these, so that sweeps of other
		// workloads resume as before.
		s["trace_format"] = string(w.Trace.Format)
		s["trace_start"] = w.Trace.Start.String()
		s["trace_duration"] = w.Trace.Duration.String()
		s["trace_block_size"] = strconv.Itoa(w.Trace.BlockSize)
		s["trace_length_scale"] = num(w.Trace.LengthScale)
		s["trace_speedup"] = num(a.Speedup)
		if w.Trace.NoSelfTimed {
			s["no_self_timed"] = "true"
		}
	}
	if w.Dataset == workload.DatasetTimedTrace {
		f := w.TimedTrace.Fields
		s["timed_trace_labels"] = strings.Join([]string{f.Timestamp, f.InputLength, f.OutputLength, f.HashIDs}, " ")
		s["timed_trace_sec_multiplier"] = num(f.SecMultiplier)
		s["timed_trace_chunk_hash_size"] = strconv.Itoa(w.TimedTrace.ChunkSize)
	}
	filter := func(g workload.ShareGPTConfig) [4]int {
		return [4]int{g.MinInputLen, g.MinOutputLen, g.MaxInputLen, g.MaxTotalLen}
	}
	if f := filter(w.ShareGPT); f != filter(workload.DefaultConfig().ShareGPT) {
		// Only when not vLLM's filter, as below.
		s["sharegpt_filter"] = fmt.Sprintf("%d %d %d %d", f[0], f[1], f[2], f[3])
	}
	if o := w.Random.OutputRangeRatio; o != nil {
		// Only when given apart from the input's, as warmup_requests.
		s["random_output_range_ratio"] = num(*o)
	}
	if b.WarmupRequests > 0 {
		// Only when given, so that sweeps measured before the key existed
		// resume.
		s["warmup_requests"] = strconv.Itoa(b.WarmupRequests)
	}
	for k, v := range requestSettings(b) {
		s[k] = v
	}
	if r.cfg.Virtual != nil {
		s["clock"] = "virtual"
		info, _ := sim.Resolve(*r.cfg.Virtual) // valid: New checked
		s["simulator"] = strings.TrimSpace(info.String())
		s["simulator_seed"] = strconv.FormatUint(r.cfg.Virtual.Seed, 10)
	} else {
		s["clock"] = "wall"
		s["backend"] = b.Backend
		s["endpoint"] = b.Endpoint
		s["model"] = b.Model
	}
	return s
}

// checkManifest compares the directory's sweep-config.json, if any, with
// the settings of a sweep in mode, and names every difference.
func (r *Runner) checkManifest(mode sweep.Mode) error {
	path := filepath.Join(r.cfg.Dir, ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &UnreadableError{fmt.Errorf("--resume: %w", err)}
	}
	old, err := parseManifest(b)
	if err != nil {
		return &UnreadableError{fmt.Errorf("--resume: %s: %w", path, err)}
	}
	now := r.settings(mode)
	var keys []string
	for k := range now {
		keys = append(keys, k)
	}
	for k := range old.Settings {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		if old.Settings[k] != now[k] {
			diffs = append(diffs, fmt.Sprintf("%s was %q, now %q", k, old.Settings[k], now[k]))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("--resume: %s was measured differently: %s; resume with the same flags, or start another --result-dir",
			r.cfg.Dir, strings.Join(diffs, "; "))
	}
	return nil
}

// parseManifest reads the contents of a sweep-config.json.
func parseManifest(b []byte) (manifestFile, error) {
	var m manifestFile
	if err := json.Unmarshal(b, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return manifestFile{}, fmt.Errorf("byte %d: %w", se.Offset, err)
		}
		return manifestFile{}, err
	}
	if m.Schema < 1 || m.Schema > manifestSchema {
		return manifestFile{}, fmt.Errorf("schema %d: this version reads 1 to %d", m.Schema, manifestSchema)
	}
	return m, nil
}

// writeManifest writes sweep-config.json for a sweep in mode.
func (r *Runner) writeManifest(mode sweep.Mode) error {
	return writeJSONFile(filepath.Join(r.cfg.Dir, ConfigFile), manifestFile{Schema: manifestSchema, Settings: r.settings(mode)})
}

// requestSettings returns what the request flags set (sampling, the
// model asked for, streaming, the datasets' lengths, the tokenizer), each
// only when given, so that sweeps measured before these keys existed, or
// without the flags, resume. The x-request-id prefix is not a setting: a
// resumed sweep draws its own.
func requestSettings(b bench.Config) map[string]string {
	s := map[string]string{}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for k, p := range map[string]*float64{"temperature": b.Request.Sampling.Temperature, "top_p": b.Request.Sampling.TopP,
		"min_p": b.Request.Sampling.MinP, "frequency_penalty": b.Request.Sampling.FrequencyPenalty,
		"presence_penalty": b.Request.Sampling.PresencePenalty, "repetition_penalty": b.Request.Sampling.RepetitionPenalty} {
		if p != nil {
			s[k] = num(*p)
		}
	}
	if p := b.Request.Sampling.TopK; p != nil {
		s["top_k"] = strconv.Itoa(*p)
	}
	if p := b.Request.Logprobs; p != nil {
		s["logprobs"] = strconv.Itoa(*p)
	}
	if kw := b.Request.ChatTemplateKwargs; kw != nil {
		j, _ := json.Marshal(kw) // sorted keys
		s["chat_template_kwargs"] = string(j)
	}
	if n := b.Request.ServedModelName; n != "" {
		s["served_model_name"] = n
	}
	if l := b.Request.LoRA; len(l) > 0 {
		s["lora_modules"] = strings.Join(l, ",")
		if b.Request.LoRARoundRobin {
			s["lora_assignment"] = "round-robin"
		}
	}
	if b.NoStream {
		s["stream"] = "false"
	}
	if b.NoOversample {
		s["no_oversample"] = "true"
	}
	if id := b.VLLMFile.TokenizerID; id != "" && !b.VLLMFile.NoTokenizer {
		s["tokenizer"] = id
	}
	w := b.Workload
	if n := w.ShareGPT.OutputLen; n > 0 {
		s["sharegpt_output_len"] = strconv.Itoa(n)
	}
	if w.HF.Name != "" || w.HF.OutputLen > 0 {
		s["hf_name"], s["hf_output_len"] = w.HF.Name, strconv.Itoa(w.HF.OutputLen)
	}
	if w.Dataset == workload.DatasetHF && len(w.HF.BFCLCategories) > 0 {
		s["bfcl_categories"] = strings.Join(w.HF.BFCLCategories, ",")
	}
	if h := w.HF; w.Dataset == workload.DatasetHF && (h.BlazeditMinDistance != 0 || h.BlazeditMaxDistance != 1) {
		s["blazedit_min_distance"], s["blazedit_max_distance"] =
			strconv.FormatFloat(h.BlazeditMinDistance, 'g', -1, 64), strconv.FormatFloat(h.BlazeditMaxDistance, 'g', -1, 64)
	}
	// The sonnet, spec_bench and speed_bench shapes have defaults every earlier sweep
	// of them was measured with: they are settings once they differ.
	def := workload.DefaultConfig()
	if w.Dataset == workload.DatasetSonnet && w.Sonnet != def.Sonnet {
		s["sonnet_input_len"], s["sonnet_output_len"], s["sonnet_prefix_len"] =
			strconv.Itoa(w.Sonnet.InputLen), strconv.Itoa(w.Sonnet.OutputLen), strconv.Itoa(w.Sonnet.PrefixLen)
	}
	if w.Dataset == workload.DatasetSpecBench && w.SpecBench != def.SpecBench {
		s["spec_bench_output_len"], s["spec_bench_category"] = strconv.Itoa(w.SpecBench.OutputLen), w.SpecBench.Category
	}
	if w.Dataset == workload.DatasetSpeedBench && w.SpeedBench != def.SpeedBench {
		s["speed_bench_dataset_subset"], s["speed_bench_category"], s["speed_bench_output_len"] =
			w.SpeedBench.Subset, w.SpeedBench.Category, strconv.Itoa(w.SpeedBench.OutputLen)
	}
	return s
}
