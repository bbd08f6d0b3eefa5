package cli

import (
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/sim"
)

// simEngineFlags are the built-in simulator's engine settings on bench and
// sweep, with vLLM's names behind a --sim- prefix, so that none of them can
// be mistaken for a load flag: --sim-max-num-seqs caps the simulated
// engine's batch, --max-concurrency the load. Like every --sim- flag they
// are refused with --base-url (simFlagsWithServer).
type simEngineFlags struct {
	fl *pflag.FlagSet // to tell a flag given from its default

	maxNumSeqs, maxBatched, blockSize int
	gpuMemUtil                        float64
	chunkedPrefill, prefixCaching     bool
	kvCacheDType                      string
}

func registerSimEngineFlags(fl *pflag.FlagSet, f *simEngineFlags) {
	f.fl = fl
	fl.IntVar(&f.maxNumSeqs, "sim-max-num-seqs", 0, "simulator's vLLM --max-num-seqs (default: vLLM's for the GPU)")
	fl.IntVar(&f.maxBatched, "sim-max-num-batched-tokens", 0, "simulator's vLLM --max-num-batched-tokens (default: vLLM's for the GPU)")
	fl.Float64Var(&f.gpuMemUtil, "sim-gpu-memory-utilization", sim.DefaultGPUMemoryUtilization, "simulator's vLLM --gpu-memory-utilization")
	fl.IntVar(&f.blockSize, "sim-block-size", sim.BlockSize, "simulator's vLLM --block-size (tokens per KV cache block)")
	fl.BoolVar(&f.chunkedPrefill, "sim-enable-chunked-prefill", true, "simulator's vLLM --enable-chunked-prefill")
	fl.BoolVar(&f.prefixCaching, "sim-enable-prefix-caching", true, "simulator's vLLM --enable-prefix-caching")
	fl.StringVar(&f.kvCacheDType, "sim-kv-cache-dtype", "auto", "simulator's vLLM --kv-cache-dtype: "+sim.KVCacheDTypes)
}

// prefixCachingGiven reports whether --sim-enable-prefix-caching was given,
// so that a choice the user made is never overridden.
func (f *simEngineFlags) prefixCachingGiven() bool {
	return f.fl != nil && f.fl.Changed("sim-enable-prefix-caching")
}

// apply sets the engine options the flags give.
func (f *simEngineFlags) apply(opts *sim.Options) error {
	switch {
	case f.maxNumSeqs < 0:
		return usageErr("--sim-max-num-seqs %d: must be positive", f.maxNumSeqs)
	case f.maxBatched < 0:
		return usageErr("--sim-max-num-batched-tokens %d: must be positive", f.maxBatched)
	case !(f.gpuMemUtil > 0 && f.gpuMemUtil <= 1):
		return usageErr("--sim-gpu-memory-utilization %v: must be in (0, 1]", f.gpuMemUtil)
	case f.blockSize < 1:
		return usageErr("--sim-block-size %d: must be positive", f.blockSize)
	}
	if !sim.ValidKVCacheDType(f.kvCacheDType) {
		return usageErr("--sim-kv-cache-dtype %q: want one of %s", f.kvCacheDType, sim.KVCacheDTypes)
	}
	// Settings left at their defaults leave room for a profile's own (see
	// sim.EngineSettings).
	given := func(name string) bool { return f.fl == nil || f.fl.Changed(name) }
	opts.MaxNumSeqs = f.maxNumSeqs
	opts.MaxNumBatchedTokens = f.maxBatched
	if given("sim-gpu-memory-utilization") {
		opts.GPUMemoryUtilization = f.gpuMemUtil
	}
	if given("sim-block-size") {
		opts.BlockSize = f.blockSize
	}
	opts.DisableChunkedPrefill = !f.chunkedPrefill
	opts.DisablePrefixCaching = !f.prefixCaching
	if given("sim-kv-cache-dtype") {
		opts.Profile.KVCacheDType = f.kvCacheDType
	}
	return nil
}
