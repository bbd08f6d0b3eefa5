package vllmargs

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// benchFlags is a small stand-in for goodput bench's flag set: what the
// translator needs to know is each flag's name and whether it is a switch.
func benchFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	for _, n := range []string{"base-url", "host", "port", "model", "backend", "request-rate", "num-prompts",
		"dataset-name", "dataset-path", "random-input-len", "random-output-len", "random-prefix-len", "label",
		"max-concurrency", "ready-check-timeout", "seed", "slo", "record-label", "result-dir"} {
		fs.String(n, "", "")
	}
	for _, n := range []string{"header", "goodput", "metadata", "lora-modules"} {
		fs.StringArray(n, nil, "")
	}
	for _, n := range []string{"ignore-eos", "ignore-write-errors", "quiet", "save-result", "save-detailed", "dry-run", "help"} {
		fs.Bool(n, false, "")
	}
	return fs
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		want  []string
		vllm  bool   // want VLLMStyle
		notes string // a note that must be among Result.Notes
	}{
		// goodput's own command lines pass through, spelled with "=".
		{"goodput line", []string{"--base-url", "http://h:1", "--slo", "ttft<=1s", "--quiet", "x"},
			[]string{"--base-url=http://h:1", "--slo=ttft<=1s", "--quiet", "x"}, false, ""},
		// A value may start with "-" (vLLM's --num-prompts -1).
		{"negative value", []string{"--num-prompts", "-1"}, []string{"--num-prompts=-1"}, false, ""},
		// argparse takes any unambiguous prefix, and FlexibleArgumentParser underscores.
		{"abbreviation", []string{"--random-input", "2048", "--num-prompt", "5"},
			[]string{"--random-input-len=2048", "--num-prompts=5"}, true, ""},
		// A prefix of one vLLM flag is that flag, as in vLLM, though
		// goodput's own flags share it (--ready-check-timeout beside
		// --ready-check-timeout-sec, --ignore-write-errors beside
		// --ignore-eos).
		{"vLLM's abbreviation beside goodput's flags", []string{"--rea", "60", "--ignore"},
			[]string{"--ready-check-timeout=60s", "--ignore-eos"}, true, ""},
		{"underscores", []string{"--dataset_path=a.json", "--dataset_name", "sharegpt"},
			[]string{"--dataset-path=a.json", "--dataset-name=sharegpt"}, true, ""},
		// Several values after one flag become one occurrence each.
		{"nargs", []string{"--header", "a=b", "c=d", "--goodput", "ttft:500", "tpot:50", "--quiet"},
			[]string{"--header=a=b", "--header=c=d", "--goodput=ttft:500", "--goodput=tpot:50", "--quiet"}, true, ""},
		// With "=", as argparse reads it, the value is the flag's only
		// one: what follows is no value of it (a positional here).
		{"nargs with =", []string{"--header=a=b", "c=d"}, []string{"--header=a=b", "c=d"}, false, ""},
		// A lone value keeps goodput's style.
		{"one value of many", []string{"--header", "a=b"}, []string{"--header=a=b"}, false, ""},
		// nargs="*" may be empty.
		{"empty nargs", []string{"--metadata", "--quiet"}, []string{"--quiet"}, true, ""},
		// Renamed flags become goodput's, converting the value.
		{"renamed", []string{"--ready-check-timeout-sec", "600", "--endpoint-type", "openai-chat", "--disable-tqdm"},
			[]string{"--ready-check-timeout=600s", "--backend=openai-chat", "--quiet"}, true, "--disable-tqdm is goodput's --quiet"},
		// Ignored flags vanish with a note.
		{"ignored", []string{"--no-stream", "--use-beam-search", "--quiet"}, []string{"--quiet"}, true, "--no-stream ignored"},
		// A refused flag at the value that asks for nothing is accepted.
		{"refused at default", []string{"--random-batch-size", "1", "--best-of", "1"}, nil, false, ""},
		// A vLLM-only flag marks the line.
		{"vllm-only", []string{"--host", "localhost"}, []string{"--host=localhost"}, true, ""},
		// So does a value only vLLM's lines give: its name for the
		// completions API.
		{"vllm backend", []string{"--backend", "vllm"}, []string{"--backend=vllm"}, true, ""},
		{"openai backend", []string{"--backend", "openai"}, []string{"--backend=openai"}, false, ""},
		// After "--" nothing is translated.
		{"double dash", []string{"--quiet", "--", "--random_input", "x"}, []string{"--quiet", "--", "--random_input", "x"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Translate(tt.args, benchFlags())
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			if !reflect.DeepEqual(r.Args, tt.want) {
				t.Errorf("args = %q, want %q", r.Args, tt.want)
			}
			if r.VLLMStyle != tt.vllm {
				t.Errorf("VLLMStyle = %v (because %q), want %v", r.VLLMStyle, r.Because, tt.vllm)
			}
			if tt.notes != "" && !strings.Contains(strings.Join(r.Notes, "\n"), tt.notes) {
				t.Errorf("notes %q lack %q", r.Notes, tt.notes)
			}
		})
	}
}

// A flag of several values given again keeps the last occurrence's values,
// as argparse stores an nargs flag, and a note says what was dropped;
// --flag=value, goodput's spelling of one value, adds to the others.
func TestTranslateRepeatedListFlags(t *testing.T) {
	const keepAll = " as vLLM keeps the last occurrence only; give every value after one --"
	tests := []struct {
		name  string
		args  []string
		want  []string
		notes []string
	}{
		{"the last list wins", []string{"--goodput", "ttft:500", "tpot:50", "--quiet", "--goodput", "e2el:9000"},
			[]string{"--quiet", "--goodput=e2el:9000"},
			[]string{"--goodput ttft:500 tpot:50: replaced by a later --goodput," + keepAll + "goodput to keep them all"}},
		// Each occurrence drops the one before it: one note each.
		{"three times", []string{"--lora-modules", "a", "--lora-modules", "b", "c", "--lora-modules", "d"},
			[]string{"--lora-modules=d"},
			[]string{"--lora-modules a: replaced by a later --lora-modules," + keepAll + "lora-modules to keep them all",
				"--lora-modules b c: replaced by a later --lora-modules," + keepAll + "lora-modules to keep them all"}},
		// An abbreviation or an underscore spells the same flag.
		{"other spellings", []string{"--lora_modules", "a", "--lora-mod", "b"}, []string{"--lora-modules=b"},
			[]string{"--lora-modules a: replaced by a later --lora-modules," + keepAll + "lora-modules to keep them all"}},
		// Headers add up, a note says where vLLM would drop some, and
		// counts them: they may hold credentials.
		{"headers add up", []string{"--header", "Authorization=Bearer sk-1", "X-A=1", "--header", "X-B=2"},
			[]string{"--header=Authorization=Bearer sk-1", "--header=X-A=1", "--header=X-B=2"},
			[]string{"--header given again: the headers of every occurrence are sent (2 headers before this one), where vLLM sends the last occurrence's alone"}},
		// nargs="*" may be empty, and an empty list replaces too.
		{"an empty list replaces", []string{"--metadata", "tp=1", "--metadata"}, nil,
			[]string{"--metadata tp=1: replaced by a later --metadata," + keepAll + "metadata to keep them all"}},
		{"an empty list dropped", []string{"--metadata", "--metadata", "tp=1"}, []string{"--metadata=tp=1"}, nil},
		// Each flag keeps its own values.
		{"flags apart", []string{"--goodput", "ttft:1", "--metadata", "k=v", "--goodput", "tpot:2"}, []string{"--metadata=k=v", "--goodput=tpot:2"},
			[]string{"--goodput ttft:1: replaced by a later --goodput," + keepAll + "goodput to keep them all"}},
		// goodput's spelling, one value per occurrence, adds up.
		{"--flag=value adds", []string{"--header=a=b", "--quiet", "--header=c=d"}, []string{"--header=a=b", "--quiet", "--header=c=d"}, nil},
		// A list after it still replaces it, as in vLLM.
		{"a list after --flag=value", []string{"--goodput=ttft:500", "--goodput", "tpot:50"}, []string{"--goodput=tpot:50"},
			[]string{"--goodput ttft:500: replaced by a later --goodput," + keepAll + "goodput to keep them all"}},
		// Where vLLM would drop a list, goodput says it kept it.
		{"--flag=value after a list", []string{"--goodput", "ttft:500", "--goodput=tpot:50"}, []string{"--goodput=ttft:500", "--goodput=tpot:50"},
			[]string{"--goodput ttft:500: kept, since a later --goodput=… adds its one value, as goodput's flags do; vLLM would keep the last occurrence only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Translate(tt.args, benchFlags())
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			if !slices.Equal(r.Args, tt.want) {
				t.Errorf("args = %q, want %q", r.Args, tt.want)
			}
			if !slices.Equal(r.Notes, tt.notes) {
				t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(r.Notes, "\n"), strings.Join(tt.notes, "\n"))
			}
			if strings.Contains(strings.Join(r.Notes, " "), "sk-1") {
				t.Errorf("a note shows a header's value: %q", r.Notes)
			}
		})
	}
}

func TestTranslateReportsEveryProblemAtOnce(t *testing.T) {
	_, err := Translate([]string{
		"--requst-rate", "5", // a typo
		"--random", "3", // ambiguous
		"--random-batch-size", "4", // refused at a value that asks for embeddings
		"--dataset-name", "random",
		"--enable-multimodal-chat", // refused outright
		"--model",                  // no value
	}, benchFlags())
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	want := []string{
		"--requst-rate: unknown flag (did you mean --request-rate?)",
		"--random: ambiguous, it could be --random-batch-size, --random-input-len, --random-mm-base-items-per-request, --random-mm-bucket-config or 5 more",
		"--random-batch-size 4: refused unless 1: embedding benchmarks are not supported",
		"--enable-multimodal-chat: refused: multimodal datasets are not supported",
		"--model: needs a value",
	}
	if !reflect.DeepEqual(e.Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(e.Problems, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "5 problems with the command line:\n  --requst-rate") {
		t.Errorf("message: %s", err)
	}
}

// A prefix that is ambiguous among goodput's flags and names no vLLM flag
// stays ambiguous.
func TestTranslateAmbiguousAmongGoodputsFlags(t *testing.T) {
	fs := benchFlags()
	fs.Bool("quietly", false, "")
	_, err := Translate([]string{"--quie"}, fs)
	if err == nil || err.Error() != "--quie: ambiguous, it could be --quiet, --quietly" {
		t.Errorf("err = %v", err)
	}
}

func TestTranslateUnknownWithoutNeighbour(t *testing.T) {
	_, err := Translate([]string{"--zzzzzzzzzzzz"}, benchFlags())
	if err == nil || err.Error() != "--zzzzzzzzzzzz: unknown flag" {
		t.Errorf("err = %v", err)
	}
}

func TestFlagsTableIsSortedAndComplete(t *testing.T) {
	for i, f := range Flags {
		if i > 0 && Flags[i-1].Name >= f.Name {
			t.Errorf("Flags not sorted at %q after %q", f.Name, Flags[i-1].Name)
		}
		if f.VLLM == "" || f.Goodput == "" {
			t.Errorf("--%s: the docs need both descriptions", f.Name)
		}
		if (f.Handling == Renamed) != (f.To != "") {
			t.Errorf("--%s: To is for renamed flags only", f.Name)
		}
		if f.Allow != nil && f.Handling != Refused {
			t.Errorf("--%s: Allow is for refused flags only", f.Name)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"600", "600s", true},
		{"0", "0s", true},
		{"1.5", "1.5s", true},
		{"-1", "", false}, // negative
		{"ten", "", false},
		{"", "", false},
	} {
		got, err := seconds(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("seconds(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"requst-rate", "request-rate", 1},
		{"kitten", "sitting", 3},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzTranslate(f *testing.F) {
	f.Add("--header a=b c=d --random_in 5 -- x")
	f.Add("--goodput ttft:500 --num-prompts -1 --requst")
	f.Add("--goodput ttft:500 tpot:50 --header=a=b --goodput=e2el:1 --header c=d --metadata --goodput x")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := Translate(strings.Fields(line), benchFlags())
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("error %v is not a list of problems", err)
			}
			return
		}
		// A translated line translates to itself: goodput's spelling is
		// a fixed point.
		again, err := Translate(r.Args, benchFlags())
		if err != nil {
			t.Fatalf("retranslating %q: %v", r.Args, err)
		}
		if !reflect.DeepEqual(again.Args, r.Args) && len(r.Args) > 0 {
			t.Fatalf("not a fixed point: %q → %q", r.Args, again.Args)
		}
	})
}

func TestForcesIgnoreEOS(t *testing.T) {
	for _, tt := range []struct {
		dataset, backend string
		want             bool
	}{
		{"random", "vllm", true},
		{"random", "openai-chat", true},
		{"sharegpt", "vllm", false}, // datasets with real answers stop where they stop
		{"random", "tgi", false},    // not an OpenAI backend
	} {
		if got := ForcesIgnoreEOS(tt.dataset, tt.backend); got != tt.want {
			t.Errorf("ForcesIgnoreEOS(%s, %s) = %v", tt.dataset, tt.backend, got)
		}
	}
}

// The --dataset of benchmark_serving.py's scripts is ambiguous, as in
// vLLM's argparse, and the message says what it became.
func TestOldDatasetFlagSaysWhatItBecame(t *testing.T) {
	_, err := Translate([]string{"--dataset", "ShareGPT_V3_unfiltered_cleaned_split.json"}, benchFlags())
	var e *Error
	want := "--dataset: ambiguous, it could be --dataset-name, --dataset-path (the --dataset of vLLM's earlier benchmark_serving.py, a ShareGPT file, is --dataset-name sharegpt --dataset-path FILE)"
	if !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0] != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestTranslateRefusesValuesGoodputLacks(t *testing.T) {
	fs := benchFlags()
	_, err := Translate([]string{"--backend", "openai-audio", "--dataset-name", "custom_audio", "--endpoint-type=vllm-rerank"}, fs)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	want := []string{
		"--backend openai-audio: refused: audio benchmarks are not supported",
		"--dataset-name custom_audio: refused: audio datasets are not supported",
		"--endpoint-type vllm-rerank: refused: rerank benchmarks are not supported",
	}
	if !reflect.DeepEqual(e.Problems, want) {
		t.Errorf("problems %q", e.Problems)
	}
	// The values goodput has pass, benchmark_serving.py's names of OpenAI
	// completions among them; its own protocols are refused.
	for _, b := range []string{"vllm", "sglang", "lmdeploy", "scalellm", "llama.cpp"} {
		if _, err := Translate([]string{"--backend", b, "--dataset-name", "sonnet"}, fs); err != nil {
			t.Error(err)
		}
	}
	_, err = Translate([]string{"--backend", "tensorrt-llm"}, fs)
	if !errors.As(err, &e) || len(e.Problems) != 1 || !strings.HasPrefix(e.Problems[0], "--backend tensorrt-llm: refused: TensorRT-LLM's Triton generate_stream API is not supported") {
		t.Errorf("tensorrt-llm: %v", err)
	}
}

// vLLM's dotted JSON arguments are one JSON argument per flag, placed last,
// values parsed as JSON where they parse, "+" making lists.
func TestTranslateDottedJSON(t *testing.T) {
	fs := benchFlags()
	fs.String("extra-body", "", "")
	r, err := Translate([]string{"--extra-body.chat_template_kwargs.enable_thinking", "false", "--quiet",
		"--extra-body.top_k=5", "--extra-body.stop+", "a,b", "--extra_body.stop+=c", "--extra-body.name", "x.y", "--", "--a.b", "1"}, fs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--quiet", `--extra-body={"chat_template_kwargs":{"enable_thinking":false},"name":"x.y","stop":["a","b","c"],"top_k":5}`, "--", "--a.b", "1"}
	if !reflect.DeepEqual(r.Args, want) || !r.VLLMStyle {
		t.Errorf("args %q (vLLM style %v), want %q", r.Args, r.VLLMStyle, want)
	}
	for _, bad := range [][]string{{"--extra-body.x"}, {"--extra-body..x", "1"}, {"--extra-body.a", "1", "--extra-body.a.b", "2"}} {
		if _, err := Translate(bad, fs); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
