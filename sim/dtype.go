package sim

import "strings"

// dtypeBytes is the storage of one weight in the named format, scales
// included for the block-quantized ones: bf16 and fp16 2 bytes, fp8 and
// int8 1, int4 (AWQ, GPTQ: a 16-bit scale per group of 128) 0.5 + 1/64, and
// mxfp4 (a shared 8-bit exponent per 32) 0.5 + 1/32.
func dtypeBytes(s string) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "bf16", "bfloat16", "fp16", "float16", "half":
		return 2, true
	case "fp8", "fp8_e4m3", "fp8_e5m2", "int8", "w8a8":
		return 1, true
	case "int4", "awq", "gptq", "w4a16":
		return 0.5 + 1.0/64, true
	case "mxfp4", "fp4", "nvfp4":
		return 0.5 + 1.0/32, true
	case "fp32", "float32":
		return 4, true
	}
	return 0, false
}

// kvDTypeBytes is the bytes of one KV cache element for vLLM's
// --kv-cache-dtype value; 0 for "auto" (the model's own).
func kvDTypeBytes(s string) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return 0, true
	case "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla":
		return 1, true
	case "bfloat16", "bf16", "float16", "fp16", "half":
		return 2, true
	}
	return 0, false
}

// KVCacheDTypes lists the --kv-cache-dtype values the simulator takes.
const KVCacheDTypes = "auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16"

// fp8Compute reports whether a matrix multiply with weights in format s
// runs at the GPU's FP8 peak: FP8 weights on a GPU with FP8 tensor cores
// (vLLM's W8A8). Other quantized formats widen to 16 bits (W4A16), so they
// read fewer bytes but compute at the BF16 peak.
func fp8Compute(weight string, g GPU) bool {
	switch strings.ToLower(strings.TrimSpace(weight)) {
	case "fp8", "fp8_e4m3", "fp8_e5m2", "w8a8":
		return g.FP8TFLOPS > 0
	}
	return false
}

// ValidKVCacheDType reports whether s is a --kv-cache-dtype value the
// simulator takes (see KVCacheDTypes).
func ValidKVCacheDType(s string) bool {
	_, ok := kvDTypeBytes(s)
	return ok
}
