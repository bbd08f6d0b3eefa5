package sim

// Achieved fractions of peak bandwidth (MBU) and of peak FLOP/s (MFU) per
// GPU family, fitted to the published vLLM measurements of the calibration
// report on the H100-SXM, H100-PCIe, H200, A100-80GB and RTX 4090; families
// without measurements take the closest measured one's. Decoding reads the
// weights once per step: its time is the weights and KV over MBU ×
// bandwidth. Prefill is a large matrix multiply: its time is the FLOPs over
// MFU × peak. vLLM's prefill reaches about 300 TFLOP/s on an H100 SXM or
// H200 (30 % of the 989 dense BF16 peak, which assumes a boost clock the
// GPU does not hold under load) and about 340 on the H100 PCIe (45 % of
// its lower peak), 156 on an A100 (50 %) and about 107 on an RTX 4090
// (65 %).
const (
	hopperMBU, hopperMFU = 0.85, 0.30 // H100 SXM, H200 (fitted); H100 NVL, H20 alike
	hopperPCIeMFU        = 0.45       // H100 PCIe (fitted)
	ampereMBU, ampereMFU = 0.85, 0.50 // A100 (fitted); A10G, A40, A6000, RTX 3090 alike
	adaMBU, adaMFU       = 0.85, 0.65 // RTX 4090 (fitted); L4, L40, L40S alike
	blackwellMBU         = 0.80       // B200, GB200, RTX 5090: Hopper's bandwidth share, no measurement here
	blackwellMFU         = 0.30
	cdnaMBU, cdnaMFU     = 0.70, 0.30 // MI250X, MI300X, MI325X: ROCm kernels reach less of the peak (no measurement here)
	gaudiMBU, gaudiMFU   = 0.70, 0.30 // Gaudi 3: as CDNA (no measurement here)
)

// Built-in GPUs. Memory, bandwidth and peaks are the vendor's figures for
// one GPU (one GCD of an MI250X, which vLLM sees as a device); peaks are
// dense (without sparsity) tensor-core figures. Links are per direction:
// NVLink's is half its bidirectional total, PCIe Gen4 x16 is 32 GB/s and
// Gen5 64 GB/s.
var builtinGPUs = []GPU{
	{Name: "A100-40GB", MemoryGiB: 40, BandwidthTBps: 1.555, TFLOPS: 312, LinkGBps: 300, AllReduceLatencyUS: 8, MBU: ampereMBU, MFU: ampereMFU,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB): 1,555 GB/s HBM2, BF16 312 TFLOPS dense, NVLink 600 GB/s"},
	{Name: "A100-80GB", MemoryGiB: 80, BandwidthTBps: 2.039, TFLOPS: 312, LinkGBps: 300, AllReduceLatencyUS: 8, MBU: ampereMBU, MFU: ampereMFU,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): 2,039 GB/s HBM2e, BF16 312 TFLOPS dense, NVLink 600 GB/s"},
	{Name: "A10G", MemoryGiB: 24, BandwidthTBps: 0.6, TFLOPS: 70, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: ampereMBU, MFU: ampereMFU,
		Source: "AWS EC2 G5 (NVIDIA A10G): 24 GB GDDR6 at 600 GB/s; tensor FP16 70 TFLOPS dense as compared with the A10 by Baseten (AWS publishes no datasheet); PCIe Gen4"},
	{Name: "A40", MemoryGiB: 48, BandwidthTBps: 0.696, TFLOPS: 149.7, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: ampereMBU, MFU: ampereMFU,
		Source: "NVIDIA A40 datasheet: 48 GB GDDR6 at 696 GB/s, BF16 tensor 149.7 TFLOPS dense; PCIe Gen4"},
	{Name: "B200", MemoryGiB: 180, BandwidthTBps: 8, TFLOPS: 2250, FP8TFLOPS: 4500, LinkGBps: 900, AllReduceLatencyUS: 5, MBU: blackwellMBU, MFU: blackwellMFU,
		Source: "NVIDIA HGX B200 datasheet, per GPU: 180 GB HBM3e at 8 TB/s, BF16 2.25 PFLOPS and FP8 4.5 PFLOPS dense (half the sparse figures), NVLink 5 1.8 TB/s"},
	{Name: "GB200", MemoryGiB: 186, BandwidthTBps: 8, TFLOPS: 2500, FP8TFLOPS: 5000, LinkGBps: 900, AllReduceLatencyUS: 5, MBU: blackwellMBU, MFU: blackwellMFU,
		Source: "NVIDIA GB200 NVL72 datasheet, per GPU (÷72): 186 GB HBM3e at 8 TB/s, BF16 2.5 PFLOPS and FP8 5 PFLOPS dense, NVLink 5 1.8 TB/s"},
	{Name: "Gaudi3", MemoryGiB: 128, BandwidthTBps: 3.7, TFLOPS: 1835, FP8TFLOPS: 1835, LinkGBps: 600, AllReduceLatencyUS: 10, MBU: gaudiMBU, MFU: gaudiMFU,
		Source: "Intel Gaudi 3 AI accelerator white paper: 128 GB HBM2e at 3.7 TB/s, BF16 and FP8 1,835 TFLOPS (MME), 24 × 200 GbE (1.2 TB/s bidirectional)"},
	{Name: "H100-NVL", MemoryGiB: 94, BandwidthTBps: 3.9, TFLOPS: 835, FP8TFLOPS: 1670, LinkGBps: 300, AllReduceLatencyUS: 8, MBU: hopperMBU, MFU: hopperMFU,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 NVL): 94 GB HBM3 at 3.9 TB/s, BF16 835 and FP8 1,670 TFLOPS dense, NVLink bridge 600 GB/s"},
	{Name: "H100-PCIe", MemoryGiB: 80, BandwidthTBps: 2.0, TFLOPS: 756, FP8TFLOPS: 1513, LinkGBps: 64, AllReduceLatencyUS: 15, MBU: hopperMBU, MFU: hopperPCIeMFU,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe): 80 GB HBM2e at 2 TB/s, BF16 756 and FP8 1,513 TFLOPS dense, PCIe Gen5 128 GB/s"},
	{Name: "H100-SXM", MemoryGiB: 80, BandwidthTBps: 3.35, TFLOPS: 989, FP8TFLOPS: 1979, LinkGBps: 450, AllReduceLatencyUS: 6, MBU: hopperMBU, MFU: hopperMFU,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM): 80 GB HBM3 at 3.35 TB/s, BF16 989 and FP8 1,979 TFLOPS dense, NVLink 900 GB/s"},
	{Name: "H20", MemoryGiB: 96, BandwidthTBps: 4.0, TFLOPS: 148, FP8TFLOPS: 296, LinkGBps: 450, AllReduceLatencyUS: 6, MBU: hopperMBU, MFU: hopperMFU,
		Source: "NVIDIA H20 product brief: 96 GB HBM3 at 4.0 TB/s, BF16 148 and FP8 296 TFLOPS dense, NVLink 900 GB/s"},
	{Name: "H200", MemoryGiB: 141, BandwidthTBps: 4.8, TFLOPS: 989, FP8TFLOPS: 1979, LinkGBps: 450, AllReduceLatencyUS: 6, MBU: hopperMBU, MFU: hopperMFU,
		Source: "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM): 141 GB HBM3e at 4.8 TB/s, BF16 989 and FP8 1,979 TFLOPS dense, NVLink 900 GB/s"},
	{Name: "L4", MemoryGiB: 24, BandwidthTBps: 0.3, TFLOPS: 121, FP8TFLOPS: 242, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: adaMBU, MFU: adaMFU,
		Source: "NVIDIA L4 Tensor Core GPU datasheet: 24 GB GDDR6 at 300 GB/s, BF16 121 and FP8 242 TFLOPS dense, PCIe Gen4"},
	{Name: "L40", MemoryGiB: 48, BandwidthTBps: 0.864, TFLOPS: 181, FP8TFLOPS: 362, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: adaMBU, MFU: adaMFU,
		Source: "NVIDIA L40 GPU datasheet: 48 GB GDDR6 at 864 GB/s, BF16 181 and FP8 362 TFLOPS dense, PCIe Gen4"},
	{Name: "L40S", MemoryGiB: 48, BandwidthTBps: 0.864, TFLOPS: 362, FP8TFLOPS: 733, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: adaMBU, MFU: adaMFU,
		Source: "NVIDIA L40S GPU datasheet: 48 GB GDDR6 at 864 GB/s, BF16 362 and FP8 733 TFLOPS dense, PCIe Gen4"},
	{Name: "MI250X", MemoryGiB: 64, BandwidthTBps: 1.6, TFLOPS: 191.5, LinkGBps: 50, AllReduceLatencyUS: 12, MBU: cdnaMBU, MFU: cdnaMFU,
		Source: "AMD Instinct MI250X datasheet, per GCD (½ of the module's 128 GB HBM2e at 3.2 TB/s and BF16 383 TFLOPS); Infinity Fabric 50 GB/s per link"},
	{Name: "MI300X", MemoryGiB: 192, BandwidthTBps: 5.3, TFLOPS: 1307, FP8TFLOPS: 2615, LinkGBps: 448, AllReduceLatencyUS: 8, MBU: cdnaMBU, MFU: cdnaMFU,
		Source: "AMD Instinct MI300X datasheet: 192 GB HBM3 at 5.3 TB/s, BF16 1,307.4 and FP8 2,614.9 TFLOPS dense, Infinity Fabric 7 × 128 GB/s"},
	{Name: "MI325X", MemoryGiB: 256, BandwidthTBps: 6.0, TFLOPS: 1307, FP8TFLOPS: 2615, LinkGBps: 448, AllReduceLatencyUS: 8, MBU: cdnaMBU, MFU: cdnaMFU,
		Source: "AMD Instinct MI325X datasheet: 256 GB HBM3E at 6 TB/s, BF16 1,307.4 and FP8 2,614.9 TFLOPS dense, Infinity Fabric 7 × 128 GB/s"},
	{Name: "RTX-3090", MemoryGiB: 24, BandwidthTBps: 0.936, TFLOPS: 71, LinkGBps: 32, AllReduceLatencyUS: 20, MBU: ampereMBU, MFU: ampereMFU,
		Source: "NVIDIA Ampere GA102 GPU architecture whitepaper: RTX 3090 24 GB GDDR6X at 936 GB/s, BF16 tensor with FP32 accumulate 71 TFLOPS dense; PCIe Gen4"},
	{Name: "RTX-4090", MemoryGiB: 24, BandwidthTBps: 1.008, TFLOPS: 165.2, FP8TFLOPS: 330.3, LinkGBps: 32, AllReduceLatencyUS: 20, MBU: adaMBU, MFU: adaMFU,
		Source: "NVIDIA Ada GPU architecture whitepaper: RTX 4090 24 GB GDDR6X at 1,008 GB/s, BF16 tensor with FP32 accumulate 165.2 TFLOPS dense (82.6 is TF32), FP8 330.3; PCIe Gen4"},
	{Name: "RTX-5090", MemoryGiB: 32, BandwidthTBps: 1.792, TFLOPS: 209.5, FP8TFLOPS: 419, LinkGBps: 64, AllReduceLatencyUS: 20, MBU: blackwellMBU, MFU: blackwellMFU,
		Source: "NVIDIA RTX Blackwell GPU architecture whitepaper: RTX 5090 32 GB GDDR7 at 1,792 GB/s, BF16 tensor with FP32 accumulate 209.5 TFLOPS dense, FP8 419; PCIe Gen5"},
	{Name: "RTX-A6000", MemoryGiB: 48, BandwidthTBps: 0.768, TFLOPS: 154.8, LinkGBps: 32, AllReduceLatencyUS: 15, MBU: ampereMBU, MFU: ampereMFU,
		Source: "NVIDIA RTX A6000 datasheet: 48 GB GDDR6 at 768 GB/s, BF16 tensor 154.8 TFLOPS dense; PCIe Gen4"},
}

// engineDefaults are vLLM's scheduler defaults for a GPU, which follow its
// memory and name (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults):
// GPUs with at least 70 GiB that are not A100s (H100, H200, MI300X…) get
// max_num_batched_tokens 8192 for the API server and 16384 for the offline
// LLM class, and max_num_seqs 1024; the others 2048 and 8192, and 256.
func engineDefaults(g GPU, offline bool) (maxBatched, maxSeqs int) {
	large := g.MemoryGiB >= 70 && !containsFold(g.Name, "a100")
	switch {
	case large && offline:
		return 16384, 1024
	case large:
		return 8192, 1024
	case offline:
		return 8192, 256
	}
	return 2048, 256
}
