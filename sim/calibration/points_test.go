package calibration

import (
	"strings"
	"testing"
)

const header = "id\tsource\tgpu\tmodel\tprecision\tengine_version\tin_len\tout_len\tconcurrency_or_rate\tpub_out_tok_s\tpub_ttft_ms\tpub_ttft_stat\tpub_tpot_ms\tpub_tpot_stat\tnotes\n"

func TestReadPoints(t *testing.T) {
	text := header +
		"a\tsrc\tH100-SXM\tLlama-3.1-8B\tBF16\tvLLM 0.11\t128-384 (short chat)\t192-320\tc=4\t580\t22.8\tmean\t6.59\tmean\t\n" +
		"# a comment\n\n" +
		"b\tsrc\t2x H100-SXM\tQwen3-14B\tFP8\tvLLM\tShareGPT (mean 217, chat)\tShareGPT (mean 202)\trate=inf, 1000 prompts at once\t3173.9\t22141\tmedian\t\t\t\n" +
		"c\tsrc\tA100-80GB\tLlama-3.1-8B\tBF16\tnightly\t32\t128\tbatch 8 (offline)\t\t\t\t12.39\te2e/128\tsee notes\n" +
		"d\tsrc\tRTX-4090\tMeta-Llama-3-8B-Instruct (Llama-3.1-8B shape)\tBF16\tvLLM\tShareGPT (mean 206)\tShareGPT (mean 202, EOS)\trate=4 Poisson\t685.4\t56.86\tmean\t22.6\tmean\t200 prompts\n"
	points, err := ReadPoints(strings.NewReader(text), "p.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 4 {
		t.Fatalf("%d points, want 4", len(points))
	}
	a, b, c, d := points[0], points[1], points[2], points[3]
	if a.Line != 2 || a.Input != (Lengths{Min: 128, Max: 384}) || a.Output != (Lengths{Min: 192, Max: 320}) ||
		a.Load.Concurrency != 4 || a.Load.Requests != 200 || a.Chat || a.Offline ||
		a.Published.OutputTokS != 580 || a.Published.TTFT != 22.8 || a.Published.TPOT != 6.59 {
		t.Errorf("point a: %+v", a)
	}
	if b.Line != 5 || b.GPU != "H100-SXM" || b.TensorParallel != 2 || !b.Chat || b.Load != (Load{Requests: 1000}) ||
		b.Input != (Lengths{Mean: 217, ShareGPT: true}) || !b.Published.TTFTStat.Median || b.Published.TPOT != 0 {
		t.Errorf("point b: %+v", b)
	}
	if !c.Offline || c.Load != (Load{Requests: 8}) || c.Published.TPOTStat.PerTokens != 128 || c.Input != (Lengths{Min: 32, Max: 32}) {
		t.Errorf("point c: %+v", c)
	}
	if d.Load != (Load{Rate: 4, Requests: 200}) || d.Output.Full || modelName(d.Model) != "Llama-3.1-8B" {
		t.Errorf("point d: %+v, model %q", d, modelName(d.Model))
	}
}

func TestReadPointsRejects(t *testing.T) {
	row := func(fields ...string) string {
		base := []string{"x", "src", "H100", "Llama-3.1-8B", "BF16", "v", "100", "100", "c=1", "100", "10", "mean", "5", "mean", ""}
		for i := 0; i+1 < len(fields); i += 2 {
			for j, c := range strings.Split(strings.TrimSuffix(header, "\n"), "\t") {
				if c == fields[i] {
					base[j] = fields[i+1]
				}
			}
		}
		return strings.Join(base, "\t") + "\n"
	}
	tests := []struct {
		name, text, want string
	}{
		{"empty file", "", "p.tsv: empty file"},
		{"no rows", header, "p.tsv: no points"},
		{"missing column", "id\tsource\n", `p.tsv:1: no column "gpu"`},
		{"empty id", header + row("id", ""), "p.tsv:2: id: empty"},
		{"duplicate id", header + row() + row(), `p.tsv:3: id "x" already on line 2`},
		{"zero length", header + row("in_len", "0"), `p.tsv:2: in_len "0": want 1 to 16777216 tokens`},
		{"reversed range", header + row("in_len", "300-100"), "lo ≤ hi"},
		{"words for a length", header + row("out_len", "long"), `out_len "long": want a length`},
		{"unknown load", header + row("concurrency_or_rate", "lots"), `concurrency_or_rate "lots"`},
		{"zero concurrency", header + row("concurrency_or_rate", "c=0"), "concurrency must be between 1"},
		{"absurd tensor parallelism", header + row("gpu", "99999999999999999999x H100"), "GPUs: more than 1024"},
		{"zero rate", header + row("concurrency_or_rate", "rate=0 Poisson"), "rate must be positive and finite"},
		{"absurd request count", header + row("concurrency_or_rate", "rate=inf, 99999999 prompts at once"), "more than a calibration run needs"},
		{"negative throughput", header + row("pub_out_tok_s", "-5"), `pub_out_tok_s "-5": want a positive number`},
		{"NaN TTFT", header + row("pub_ttft_ms", "NaN"), `pub_ttft_ms "NaN"`},
		{"no figure", header + row("pub_out_tok_s", "", "pub_ttft_ms", "", "pub_tpot_ms", ""), "no published figure"},
		{"unknown statistic", header + row("pub_tpot_stat", "p99"), `pub_tpot_stat: "p99": want mean, median or e2e/N`},
		{"divide by zero tokens", header + row("pub_tpot_stat", "e2e/0"), "divide by at least 1 token"},
	}
	for _, tt := range tests {
		_, err := ReadPoints(strings.NewReader(tt.text), "p.tsv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestParseHelpers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		gpu  string
		gpus int
	}{
		{"H100-SXM", "H100-SXM", 1},      // one GPU
		{"4x H100-SXM", "H100-SXM", 4},   // count first
		{"A100-80GB ×2", "A100-80GB", 2}, // count last
		{"8xMI300X", "MI300X", 8},        // no space
	} {
		if g, n := parseGPU(tt.in); g != tt.gpu || n != tt.gpus {
			t.Errorf("parseGPU(%q) = %q, %d; want %q, %d", tt.in, g, n, tt.gpu, tt.gpus)
		}
	}
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"latency_llama8B_tp1 table", 1}, {"TP=4", 4}, {"tp 8", 8}, {"tensor-parallel-size 2", 2}, {"no mention", 0},
	} {
		if got := tensorParallel(tt.in); got != tt.want {
			t.Errorf("tensorParallel(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, weights, kv string }{
		{"BF16", "bf16", ""}, {"BF16/FP16", "bf16", ""}, {"FP8", "fp8", ""}, {"FP8, KV FP8", "fp8", "fp8"},
		{"BF16 weights, KV cache FP8", "bf16", "fp8"}, {"AWQ", "int4", ""}, {"GPTQ int4", "int4", ""}, {"W8A8 int8", "int8", ""},
	} {
		if w, kv := precision(tt.in); w != tt.weights || kv != tt.kv {
			t.Errorf("precision(%q) = %q, %q; want %q, %q", tt.in, w, kv, tt.weights, tt.kv)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"Meta-Llama-3-8B-Instruct (Llama-3.1-8B shape)", "Llama-3.1-8B"}, {"Qwen3-8B", "Qwen3-8B"}, {"Qwen3-32B (dense)", "Qwen3-32B"},
	} {
		if got := modelName(tt.in); got != tt.want {
			t.Errorf("modelName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzReadPoints(f *testing.F) {
	f.Add(header + "a\tsrc\tH100-SXM\tLlama-3.1-8B\tBF16\tv\t128-384\t192-320\tc=4\t580\t22.8\tmean\t6.59\tmean\t\n")
	f.Add(header + "b\ts\t2x H100\tQwen3-14B\tFP8\tv\tShareGPT (mean 217, chat)\t99\trate=inf, 10 prompts at once\t3\t\t\t\te2e/7\t\n")
	f.Add("id\tsource\n\t\t\n")
	f.Fuzz(func(t *testing.T, text string) {
		points, err := ReadPoints(strings.NewReader(text), "f.tsv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.tsv") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for _, p := range points {
			if p.ID == "" || p.Load.Requests < 1 || p.Load.Requests > 1_000_000 || p.TensorParallel < 1 {
				t.Errorf("accepted %+v", p)
			}
			if l := p.Input; l.Mean == 0 && (l.Min < 1 || l.Max < l.Min) {
				t.Errorf("accepted input lengths %+v", l)
			}
		}
	})
}
