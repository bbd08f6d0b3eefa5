package workload

import (
	"fmt"
	"strings"
)

// SonnetConfig shapes the sonnet dataset (--sonnet-*), `vllm bench
// serve`'s prompts of poem lines.
type SonnetConfig struct {
	InputLen  int // --sonnet-input-len: most prompt tokens (550)
	OutputLen int // --sonnet-output-len (150)
	PrefixLen int // --sonnet-prefix-len: tokens of the lines every prompt starts with (200)
}

// PrefixRepetitionConfig shapes the prefix_repetition dataset
// (--prefix-repetition-*): NumPrefixes random prefixes, each followed by
// its own random suffixes.
type PrefixRepetitionConfig struct {
	PrefixLen   int // tokens of each prefix (256)
	SuffixLen   int // tokens of each suffix (256)
	NumPrefixes int // distinct prefixes (10)
	OutputLen   int // (128)
}

// CheckRequests refuses a run of n requests (--num-prompts; 0 for none
// given) too few to give every prefix one.
func (p PrefixRepetitionConfig) CheckRequests(n int) error {
	if n > 0 && n < p.NumPrefixes {
		return fmt.Errorf("--num-prompts %d is below --prefix-repetition-num-prefixes %d: every prefix needs a request", n, p.NumPrefixes)
	}
	return nil
}

// SpecBenchConfig shapes the spec_bench dataset (--spec-bench-*).
type SpecBenchConfig struct {
	OutputLen int    // --spec-bench-output-len (256)
	Category  string // --spec-bench-category: only this category; "" all
}

// HFConfig shapes the hf dataset: a local file of a Hugging Face dataset.
type HFConfig struct {
	// Name is the dataset's id on the hub (--hf-name), which says where
	// its prompts are; empty means the file's own path, and then the
	// columns are recognised by name (see OpenHF).
	Name string
	// OutputLen asks for this many tokens instead of the dataset's
	// answers' lengths or default (--hf-output-len); 0 keeps those.
	OutputLen int
	// Subset and Split (--hf-subset, --hf-split) are recorded: a local
	// file holds one subset and split already.
	Subset, Split string
	// BlazeditMinDistance and BlazeditMaxDistance bound the normalised
	// edit distance of the Blazedit rows sent (--blazedit-min-distance,
	// --blazedit-max-distance: 0 and 1).
	BlazeditMinDistance, BlazeditMaxDistance float64
	// Files are the dataset's files to read in turn, found in the local
	// Hugging Face cache (see Config.FromHubCache); nil reads Path.
	Files []string
	// BFCLCategories are the BFCL dataset's categories to send
	// (--bfcl-categories); nil for BFCLDefaultCategories.
	BFCLCategories []string
}

// validateVLLMDataset checks the options of the datasets above.
func (c Config) validateVLLMDataset() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	out := func(flag string, v int) {
		if v < 1 || v > MaxOutputTokens {
			bad("%s must be in [1, %d], got %d", flag, MaxOutputTokens, v)
		}
	}
	in := func(flag string, v, lo int) {
		if v < lo || v > MaxPromptTokens {
			bad("%s must be in [%d, %d], got %d", flag, lo, MaxPromptTokens, v)
		}
	}
	switch c.Dataset {
	case DatasetSonnet:
		s := c.Sonnet
		in("--sonnet-input-len", s.InputLen, 1)
		in("--sonnet-prefix-len", s.PrefixLen, 0)
		out("--sonnet-output-len", s.OutputLen)
		if s.PrefixLen > s.InputLen && s.InputLen > 0 {
			bad("--sonnet-prefix-len %d exceeds --sonnet-input-len %d", s.PrefixLen, s.InputLen)
		}
	case DatasetPrefixRepetition:
		p := c.PrefixRepetition
		in("--prefix-repetition-prefix-len", p.PrefixLen, 0)
		in("--prefix-repetition-suffix-len", p.SuffixLen, 0)
		out("--prefix-repetition-output-len", p.OutputLen)
		if p.NumPrefixes < 1 {
			bad("--prefix-repetition-num-prefixes must be ≥ 1, got %d", p.NumPrefixes)
		}
		if p.PrefixLen+p.SuffixLen == 0 {
			bad("--prefix-repetition-prefix-len and --prefix-repetition-suffix-len are both 0: prompts would be empty")
		} else if p.PrefixLen+p.SuffixLen > MaxPromptTokens {
			bad("--prefix-repetition-prefix-len plus --prefix-repetition-suffix-len exceeds the limit of %d tokens", MaxPromptTokens)
		}
	case DatasetSpecBench:
		out("--spec-bench-output-len", c.SpecBench.OutputLen)
	case DatasetSpeedBench:
		errs = append(errs, c.SpeedBench.validate()...)
	case DatasetHF:
		if c.HF.OutputLen < 0 || c.HF.OutputLen > MaxOutputTokens {
			bad("--hf-output-len must be in [0, %d], got %d", MaxOutputTokens, c.HF.OutputLen)
		}
		errs = append(errs, c.HF.validateBlazedit()...)
		for _, cat := range c.HF.BFCLCategories {
			if cat == "" || strings.ContainsAny(cat, `/\`) {
				bad("--bfcl-categories %q: want category names such as simple, live_simple, multiple", cat)
			}
		}
		if why := refusedHF(c.hfName()); why != "" {
			flag := "--hf-name"
			if c.HF.Name == "" {
				flag = "--dataset-path"
			}
			bad("%s %s: %s", flag, c.hfName(), why)
		}
	}
	return errs
}

// hubID reports whether s reads as a Hugging Face id ("org/name") rather
// than a file path: a dataset of vLLM's hf list (AI-MO/NuminaMath-1.5 has
// a dot), or an org and a name without one.
func hubID(s string) bool {
	if _, known := hfFormats[s]; known || s == bfclID || hfRefused[s] != "" {
		return true
	}
	org, name, ok := strings.Cut(s, "/")
	return ok && org != "" && name != "" && !strings.ContainsAny(name, "/\\.") && !strings.HasPrefix(s, ".")
}
