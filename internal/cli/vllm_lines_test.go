package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// fastClock runs the simulator's engine k times faster than the wall
// clock, so that a command line sized for a GPU finishes in a test. The
// client still measures real time; only the server is quick.
type fastClock struct {
	start time.Time
	k     float64
}

func (c *fastClock) Now() time.Duration { return time.Duration(float64(time.Since(c.start)) * c.k) }

func (c *fastClock) Sleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	d := time.Duration(float64(t-c.Now()) / c.k)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-wake:
	case <-ctx.Done():
	}
}

// vllmLine is a `vllm bench serve` command line as published, with where
// it was published.
type vllmLine struct {
	source string
	args   string // everything after "vllm bench serve"
	// runs is the number of requests a run must complete; 0 means the line
	// is refused, with every one of refusal in its one error message.
	runs    int
	refusal []string
	// tokens, when set, is the output a run must generate: the random
	// dataset's lengths exactly, since a vLLM command line forces
	// ignore_eos for it as vLLM does.
	tokens int
}

// Sources: docs is vllm-project/vllm docs/benchmarking/cli.md at commit
// 069c00b0ef0cdfe6b76be33796162a8a4323d69c; readme is
// vllm-project/vllm benchmarks/README.md at
// 005523d872172b63b7011de32040c911dc54fbef (lines for
// benchmarks/benchmark_serving.py, whose flags `vllm bench serve` kept);
// clitest is vllm-project/vllm tests/benchmarks/test_serve_cli.py at
// 1dd0d3144373e4fdea29e58a59c56b05b61634db; recipes is the
// vllm-project/recipes repository.
const (
	docs    = "vllm docs/benchmarking/cli.md"
	readme  = "vllm benchmarks/README.md"
	clitest = "vllm tests/benchmarks/test_serve_cli.py"
)

// timedTraceLine is vLLM's published replay of Mooncake's conversation
// trace, which TestVLLMTimedTraceLinePlan also reads.
const timedTraceLine = `--model Qwen/Qwen3.5-2B --dataset-name=timed_trace --num-prompts 100 --host 127.0.0.1 --port 8000 --dataset-path ./conversation_trace.jsonl --ignore-eos --self-timed --timed-trace-chunk-hash-size 512 --timed-trace-sec-multiplier 0.001`

var vllmLines = []vllmLine{
	{docs + ", Online Benchmark", `--backend vllm --model NousResearch/Hermes-3-Llama-3.1-8B --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 10`, 10, nil, 0},
	{docs + ", Results Visualization", `--backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 100 --plot-timeline --timeline-itl-thresholds 2,5 --plot-dataset-stats --save-result`, 100, nil, 0},
	{docs + ", Custom Dataset", `--port 9001 --save-result --save-detailed --backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name custom --dataset-path <path-to-your-data-jsonl> --skip-chat-template --num-prompts 80 --max-concurrency 1 --temperature=0.3 --top-p=0.75 --result-dir "./log/"`, 80, nil, 0},
	{docs + ", Custom Audio Dataset (Whisper)", `--model openai/whisper-tiny --backend openai-audio --endpoint /v1/audio/transcriptions --dataset-name custom_audio --dataset-path audio_data.jsonl --no-oversample --custom-output-len 256 --save-result --save-detailed --result-filename whisper_bench.json`, 0,
		[]string{"--backend openai-audio: refused: audio benchmarks are not supported", "--dataset-name custom_audio: refused: audio datasets are not supported"}, 0},
	{docs + ", Custom Audio Dataset (Qwen2-Audio)", `--model Qwen/Qwen2-Audio-7B-Instruct --backend openai-chat --endpoint /v1/chat/completions --dataset-name custom_audio --dataset-path audio_data.jsonl --no-oversample --custom-output-len 256 --enable-multimodal-chat --save-result --save-detailed --result-filename qwen_bench.json`, 0,
		[]string{"--dataset-name custom_audio: refused: audio datasets are not supported", "--enable-multimodal-chat: refused: multimodal datasets are not supported"}, 0},
	{docs + ", Custom Image Dataset", `--save-result --save-detailed --backend openai-chat --model Qwen/Qwen2-VL-7B-Instruct --endpoint /v1/chat/completions --dataset-name custom_image --dataset-path <path-to-your-image-data-jsonl> --custom-ensure-client-side-data`, 0,
		[]string{"--dataset-name custom_image: refused: multimodal datasets are not supported", "--custom-ensure-client-side-data: refused: multimodal datasets are not supported"}, 0},
	{docs + ", VisionArena", `--backend openai-chat --model Qwen/Qwen2-VL-7B-Instruct --endpoint /v1/chat/completions --dataset-name hf --dataset-path lmarena-ai/VisionArena-Chat --hf-split train --num-prompts 1000`, 0,
		[]string{"--dataset-path lmarena-ai/VisionArena-Chat: multimodal datasets are not supported"}, 0},
	{docs + ", InstructCoder with speculative decoding", `--model meta-llama/Meta-Llama-3-8B-Instruct --dataset-name hf --dataset-path likaixin/InstructCoder --num-prompts 2048`, 0,
		[]string{"it reads as a Hugging Face dataset id", "huggingface-cli download --repo-type dataset likaixin/InstructCoder"}, 0},
	{docs + ", Spec Bench, all categories", `--model meta-llama/Meta-Llama-3-8B-Instruct --dataset-name spec_bench --dataset-path "<YOUR_DOWNLOADED_PATH>/data/spec_bench/question.jsonl" --num-prompts -1`, 4, nil, 0},
	{docs + ", Spec Bench, one category", `--model meta-llama/Meta-Llama-3-8B-Instruct --dataset-name spec_bench --dataset-path "<YOUR_DOWNLOADED_PATH>/data/spec_bench/question.jsonl" --num-prompts -1 --spec-bench-category "summarization"`, 1, nil, 0},
	// Two multilingual lines of the qualitative subset, and the three of
	// throughput_2k; the answers may end before their 4096 tokens, as
	// vLLM leaves --ignore-eos off for this dataset.
	{docs + ", SPEED-Bench", `--model meta-llama/Llama-3.3-70B-Instruct --dataset-name speed_bench --dataset-path "<YOUR_DOWNLOADED_PATH>/data/speed_bench" --num-prompts -1 --speed-bench-category "multilingual"`, 2, nil, 0},
	{docs + ", SPEED-Bench throughput split", `--model meta-llama/Llama-3.3-70B-Instruct --dataset-name speed_bench --speed-bench-dataset-subset throughput_2k --dataset-path "<YOUR_DOWNLOADED_PATH>/data/speed_bench/" --num-prompts -1`, 3, nil, 0},
	{docs + ", BFCL", `--backend openai-chat --endpoint /v1/chat/completions --model openai/gpt-oss-20b --dataset-name hf --dataset-path gorilla-llm/Berkeley-Function-Calling-Leaderboard --bfcl-categories simple,live_simple,multiple --num-prompts 200`, 0,
		[]string{"huggingface-cli download --repo-type dataset gorilla-llm/Berkeley-Function-Calling-Leaderboard --include 'BFCL_v3_*.json'"}, 0},
	{docs + ", LLaVA-OneVision", `--backend openai-chat --model Qwen/Qwen2-VL-7B-Instruct --endpoint /v1/chat/completions --dataset-name hf --dataset-path lmms-lab/LLaVA-OneVision-Data --hf-split train --hf-subset "chart2text(cauldron)" --num-prompts 10`, 0,
		[]string{"--dataset-path lmms-lab/LLaVA-OneVision-Data: multimodal datasets are not supported"}, 0},
	{docs + ", Aeala/ShareGPT_Vicuna_unfiltered", `--backend openai-chat --model Qwen/Qwen2-VL-7B-Instruct --endpoint /v1/chat/completions --dataset-name hf --dataset-path Aeala/ShareGPT_Vicuna_unfiltered --hf-split train --num-prompts 10`, 0,
		[]string{"huggingface-cli download --repo-type dataset Aeala/ShareGPT_Vicuna_unfiltered"}, 0},
	{docs + ", AIMO", `--model Qwen/QwQ-32B --dataset-name hf --dataset-path AI-MO/aimo-validation-aime --num-prompts 10 --seed 42`, 0,
		[]string{"huggingface-cli download --repo-type dataset AI-MO/aimo-validation-aime"}, 0},
	{docs + ", MT-Bench", `--model Qwen/QwQ-32B --dataset-name hf --dataset-path philschmid/mt-bench --num-prompts 80`, 0,
		[]string{"--hf-name philschmid/mt-bench"}, 0},
	{docs + ", HumanEval", `--model NousResearch/Hermes-3-Llama-3.1-8B --dataset-name hf --dataset-path openai/openai_humaneval --num-prompts 80`, 0,
		[]string{"give one of its .jsonl or .parquet files as --dataset-path"}, 0},
	{docs + ", Blazedit", `--model Qwen/QwQ-32B --dataset-name hf --dataset-path vdaita/edit_5k_char --num-prompts 90 --blazedit-min-distance 0.01 --blazedit-max-distance 0.99`, 0,
		[]string{"huggingface-cli download --repo-type dataset vdaita/edit_5k_char", "--hf-name vdaita/edit_5k_char"}, 0},
	{docs + ", ASR", `--model openai/whisper-large-v3-turbo --backend openai-audio --dataset-name hf --dataset-path facebook/voxpopuli --hf-subset en --hf-split test --no-stream --trust-remote-code --num-prompts 99999999 --no-oversample --endpoint /v1/audio/transcriptions --ready-check-timeout-sec 600 --save-result --max-concurrency 512`, 0,
		[]string{"--backend openai-audio: refused: audio benchmarks are not supported"}, 0},
	{docs + ", Responses API", `--backend openai-responses --endpoint /v1/responses --model openai/gpt-oss-20b --dataset-name random --random-input-len 1024 --random-output-len 1024 --num-prompts 200`, 200, nil, 0},
	{docs + ", Running With Sampling Parameters", `--backend vllm --model NousResearch/Hermes-3-Llama-3.1-8B --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --top-k 10 --top-p 0.9 --temperature 0.5 --num-prompts 10`, 10, nil, 0},
	{docs + ", Probe Requests", `--model Qwen/Qwen2.5-VL-3B-Instruct --backend openai-chat --endpoint /v1/chat/completions --dataset-name random-mm --random-mm-bucket-config '{(2048, 2048, 1): 1.0}' --request-rate 4 --probe-request-rate 20`, 0,
		[]string{"--dataset-name random-mm: refused: multimodal datasets are not supported", "--random-mm-bucket-config"}, 0},
	{docs + ", Synthetic Random Images", `--backend openai-chat --model Qwen/Qwen2.5-VL-3B-Instruct --endpoint /v1/chat/completions --dataset-name random-mm --num-prompts 100 --max-concurrency 10 --random-prefix-len 25 --random-input-len 300 --random-output-len 40 --random-range-ratio 0.2 --random-mm-base-items-per-request 2 --random-mm-limit-mm-per-prompt '{"image": 3, "video": 0}' --random-mm-bucket-config '{(224, 224, 1): 1.0}' --request-rate inf --ignore-eos --seed 42`, 0,
		[]string{"--dataset-name random-mm: refused", "--random-mm-base-items-per-request 2: refused", "--random-mm-limit-mm-per-prompt"}, 0},
	{docs + ", Prefix Repetition Dataset", `--backend openai --model meta-llama/Llama-2-7b-chat-hf --dataset-name prefix_repetition --num-prompts 100 --prefix-repetition-prefix-len 512 --prefix-repetition-suffix-len 128 --prefix-repetition-num-prefixes 5 --prefix-repetition-output-len 128`, 100, nil, 0},
	// Mooncake's conversation trace, the file the docs name, sent at its
	// timestamps in milliseconds; its rows of the first 3 s here (see
	// timedTraceRows), all 26 sent with their 10,290 output tokens.
	{docs + ", Replay Timed Traces", timedTraceLine, 26, nil, 10290},
	{clitest + ", test_bench_serve", `--model meta-llama/Llama-3.2-1B-Instruct --host 127.0.0.1 --port 8000 --dataset-name random --random-input-len 32 --random-output-len 4 --num-prompts 5`, 5, nil, 20},
	{clitest + ", test_bench_serve_chat", `--model meta-llama/Llama-3.2-1B-Instruct --host 127.0.0.1 --port 8000 --dataset-name random --random-input-len 32 --random-output-len 4 --num-prompts 5 --endpoint /v1/chat/completions --backend openai-chat`, 5, nil, 20},
	{readme + ", Custom Dataset", `--port 9001 --save-result --save-detailed --backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name custom --dataset-path <path-to-your-data-jsonl> --custom-skip-chat-template --num-prompts 80 --max-concurrency 1 --temperature=0.3 --top-p=0.75 --result-dir "./log/"`, 80, nil, 0},
	{readme + ", Online Benchmark", `--backend vllm --model NousResearch/Hermes-3-Llama-3.1-8B --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 10`, 10, nil, 0},
	// argparse abbreviations: --random-input, --random-output, --num-prompt.
	{"vllm-project/recipes Qwen/Qwen3-Next.md at 0645a1a776a937b69c0411d9df71e266ae876fb5", `--backend vllm --model Qwen/Qwen3-Next-80B-A3B-Instruct --served-model-name qwen3-next --endpoint /v1/completions --dataset-name random --random-input 2048 --random-output 1024 --max-concurrency 10 --num-prompt 100`, 100, nil, 102400},
	{"vllm-project/recipes DeepSeek/DeepSeek-V3_2.md", `--model deepseek-ai/DeepSeek-V3.2 --dataset-name random --random-input 2048 --random-output 1024 --request-rate 10 --num-prompt 100 --trust-remote-code`, 100, nil, 102400},
	{"vllm-project/recipes MiniMax/MiniMax-M2.md, benchmark", `--backend vllm --model MiniMaxAI/MiniMax-M2 --endpoint /v1/completions --dataset-name random --random-input 2048 --random-output 1024 --max-concurrency 10 --num-prompt 100`, 100, nil, 102400},
	{"vllm-project/recipes MiniMax/MiniMax-M2.md, AMD step 4", `--model "MiniMaxAI/MiniMax-M2" --dataset-name random --random-input-len 8000 --random-output-len 1000 --request-rate 10000 --num-prompts 16 --ignore-eos`, 16, nil, 16000},
	{"skylee-01/vllm examples/my_test/strss.sh", `--backend vllm --model /home/lisiqi/work/models/Qwen3-4B --endpoint /v1/completions --dataset-name sharegpt --dataset-path /home/lisiqi/work/models/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 10`, 10, nil, 0},
	// vLLM's --metadata takes several pairs after one flag.
	{"swjeong9/vllm-example benchmark/run_benchmark_example.sh", `--backend vllm --model meta-llama/Llama-3.2-3B-Instruct --dataset-name sharegpt --dataset-path=/home/ubuntu/vllm-example/benchmark/dataset/sharegpt/ShareGPT_Vicuna_unfiltered/ShareGPT_V3_unfiltered_cleaned_split.json --save-result --save-detailed --seed 42 --result-dir=./result --metadata pp=1 tp=1 rank0=T4x1`, 1000, nil, 0},
}

// splitLine splits a shell command line into words, honouring single and
// double quotes.
func splitLine(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// pointAt rewrites a command line's server to the simulator at url.
func pointAt(args []string, url string) []string {
	out := make([]string, 0, len(args)+2)
	host, port, _ := strings.Cut(strings.TrimPrefix(url, "http://"), ":")
	target := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, eq := strings.Cut(a, "=")
		value := func(v string) {
			if eq {
				out = append(out, name+"="+v)
			} else {
				out = append(out, a, v)
				i++
			}
		}
		switch name {
		case "--host":
			target = true
			value(host)
			continue
		case "--port":
			target = true
			value(port)
			continue
		}
		out = append(out, a)
	}
	if !target {
		out = append(out, "--base-url", url)
	}
	return out
}

// servedModel is the model the line asks the server for: what vLLM's
// server would have been started with.
func servedModel(args []string) string {
	model := ""
	for i, a := range args {
		if a == "--model" && i+1 < len(args) {
			model = args[i+1]
		}
	}
	for i, a := range args {
		if a == "--served-model-name" && i+1 < len(args) {
			model = args[i+1]
		}
	}
	return model
}

// timedTracePath is where vLLM's docs keep Mooncake's conversation trace.
const timedTracePath = "./conversation_trace.jsonl"

// timedTraceRows writes the rows of Mooncake's conversation trace that
// arrive at 0 s and 3 s, its first 26 lines byte for byte, to path: a
// replay at the trace's own speed of the 100 rows the line asks for would
// take 33 s (TestVLLMTimedTraceLinePlan checks their plan).
func timedTraceRows(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(mooncake40Abs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:26], "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mooncake40Abs is mooncake40 from any directory a test moves to.
var mooncake40Abs = func() string {
	p, err := filepath.Abs(mooncake40)
	if err != nil {
		panic(err)
	}
	return p
}()

var successes = regexp.MustCompile(`Successful requests:\s+(\d+)\nFailed requests:\s+(\d+)`)

// Every published `vllm bench serve` command line of the table runs with
// only the command name changed, or is refused at once, every problem in
// one message, none of them silently. The target is this test's simulator
// (its engine 100 times faster than a GPU's clock), on a free loopback
// port, and dataset paths are this repository's small files; a line that
// names no server gets --base-url, since goodput's default target is its
// own simulator where vLLM's is 127.0.0.1:8000.
func TestPublishedVLLMCommandLines(t *testing.T) {
	if len(vllmLines) < 30 {
		t.Fatalf("only %d command lines", len(vllmLines))
	}
	emptyHubCache(t) // hub ids are refused for want of a copy, whatever this machine holds
	data := func(name string) string {
		p, err := filepath.Abs(filepath.Join("..", "..", "workload", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Placeholders, and paths on their authors' machines.
	files := map[string]string{
		"<your data path>/ShareGPT_V3_unfiltered_cleaned_split.json":                                                                data("sharegpt_small.json"),
		"/home/lisiqi/work/models/ShareGPT_V3_unfiltered_cleaned_split.json":                                                        data("sharegpt_small.json"),
		"/home/ubuntu/vllm-example/benchmark/dataset/sharegpt/ShareGPT_Vicuna_unfiltered/ShareGPT_V3_unfiltered_cleaned_split.json": data("sharegpt_small.json"),
		"<path-to-your-data-jsonl>":                             data("custom.jsonl"),
		"<YOUR_DOWNLOADED_PATH>/data/spec_bench/question.jsonl": data("spec_bench_small.jsonl"),
		"<YOUR_DOWNLOADED_PATH>/data/speed_bench":               data("speed_bench"),
	}
	for i, l := range vllmLines {
		t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
			t.Chdir(t.TempDir()) // lines that save results write them here
			line := l.args
			for placeholder, path := range files {
				line = strings.ReplaceAll(line, placeholder, path)
			}
			if strings.Contains(line, timedTracePath) {
				timedTraceRows(t, timedTracePath)
			}
			args := splitLine(line)
			url := "http://127.0.0.1:9" // a refused line must not get that far
			if l.runs > 0 {
				_, url = simtest.Serve(t, sim.Options{Seed: 1, ServedModelName: servedModel(args),
					Clock: &fastClock{start: time.Now(), k: 100}})
			}
			args = pointAt(args, url)
			out, errOut, code := run(t, "", append([]string{"bench", "--quiet"}, args...)...)
			if l.runs == 0 {
				if code != ExitUsage {
					t.Fatalf("%s\nexit %d, want 2 (refused)\n%s\n%s", l.source, code, errOut, out)
				}
				if n := strings.Count(errOut, "goodput: ") + strings.Count(errOut, "goodput bench: "); n != 1 {
					t.Errorf("%s: %d messages, want one:\n%s", l.source, n, errOut)
				}
				for _, w := range l.refusal {
					if !strings.Contains(errOut, w) {
						t.Errorf("%s: the refusal lacks %q:\n%s", l.source, w, errOut)
					}
				}
				return
			}
			if code != ExitOK {
				t.Fatalf("%s\nexit %d\n%s\n%s", l.source, code, errOut, out)
			}
			m := successes.FindStringSubmatch(out)
			if m == nil || m[1] != strconv.Itoa(l.runs) || m[2] != "0" {
				t.Errorf("%s: want %d successes and no failure:\n%s", l.source, l.runs, out)
			}
			if want := fmt.Sprintf("Total generated tokens:                  %d\n", l.tokens); l.tokens > 0 && !strings.Contains(out, want) {
				t.Errorf("%s: want %q:\n%s", l.source, want, out)
			}
		})
	}
}

func TestSplitLine(t *testing.T) {
	got := splitLine(`--a "x y" --b='{"k": 1}' c`)
	want := []string{"--a", "x y", `--b={"k": 1}`, "c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitLine = %q", got)
	}
}
