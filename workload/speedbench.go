package workload

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// SpeedBenchConfig shapes the speed_bench dataset (--speed-bench-*):
// NVIDIA's SPEED-Bench, as NeMo Skills' prepare script writes it, one
// file per subset.
type SpeedBenchConfig struct {
	Subset    string // --speed-bench-dataset-subset (qualitative): the file <subset>.jsonl
	Category  string // --speed-bench-category: only this category; "" all
	OutputLen int    // --speed-bench-output-len (4096)
}

// speedBenchSubsets are the subsets vLLM takes, in the order its help
// would list them if it kept one.
var speedBenchSubsets = []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"}

// speedBenchPrepare is how SPEED-Bench's files are made, for errors.
const speedBenchPrepare = "NeMo Skills' nemo_skills/dataset/speed-bench/prepare.py writes them (one <subset>.jsonl per subset)"

func (s SpeedBenchConfig) validate() []error {
	var errs []error
	if !slices.Contains(speedBenchSubsets, s.Subset) {
		errs = append(errs, fmt.Errorf("--speed-bench-dataset-subset %q: want one of %s", s.Subset, strings.Join(speedBenchSubsets, ", ")))
	}
	if s.OutputLen < 1 || s.OutputLen > MaxOutputTokens {
		errs = append(errs, fmt.Errorf("--speed-bench-output-len must be in [1, %d], got %d", MaxOutputTokens, s.OutputLen))
	}
	return errs
}

// speedBenchFile returns the file of c's subset: --dataset-path is the
// directory that holds <subset>.jsonl, as vLLM takes it, or that file
// itself.
func (c Config) speedBenchFile() (string, error) {
	fi, err := os.Stat(c.Path)
	if err != nil {
		return "", fmt.Errorf("--dataset-path: %w", err)
	}
	if !fi.IsDir() {
		return c.Path, nil
	}
	name := filepath.Join(c.Path, c.SpeedBench.Subset+".jsonl")
	if _, err := os.Stat(name); err != nil {
		return "", fmt.Errorf("--dataset-path %s: no %s.jsonl (--speed-bench-dataset-subset %s) in it; %s", c.Path, c.SpeedBench.Subset, c.SpeedBench.Subset, speedBenchPrepare)
	}
	return name, nil
}

// openSpeedBench reads the file of c's subset with ReadSpeedBench.
func openSpeedBench(c Config) (Source, error) {
	name, err := c.speedBenchFile()
	if err != nil {
		return nil, err
	}
	c.Path = name
	return openDataset(c, ReadSpeedBench)
}

// ReadSpeedBench reads one subset of SPEED-Bench: one object per line
// with a "category" and "messages", a conversation of {"role",
// "content"}. As in `vllm bench serve --dataset-name speed_bench`, each
// line's first message becomes a prompt asking for
// --speed-bench-output-len tokens (later turns are not sent), only those
// of --speed-bench-category when it is set. A line without messages is
// an error naming name:line; a category no line has is an error that
// lists the file's.
func ReadSpeedBench(r io.Reader, name string, c Config) (*Dataset, error) {
	label := "speed_bench " + name
	coll := newCollector(c)
	categories := map[string]bool{}
	err := EachLine(r, name, func(_ int, text []byte) error {
		coll.entry()
		var l struct {
			Category *string   `json:"category"`
			Messages []Message `json:"messages"`
		}
		if err := jsonerr.Unmarshal(text, &l); err != nil {
			return jsonerr.Plain(err)
		}
		if len(l.Messages) == 0 {
			return errors.New(`no "messages": want SPEED-Bench's lines, as ` + speedBenchPrepare)
		}
		if l.Category != nil {
			categories[*l.Category] = true
		}
		want := c.SpeedBench.Category
		switch {
		case want != "" && l.Category == nil:
			return fmt.Errorf(`no "category", which --speed-bench-category %s asks for`, want)
		case want != "" && *l.Category != want:
			coll.skip("of another category")
		case l.Messages[0].Content == "":
			coll.skip("with an empty first message")
		default:
			p := l.Messages[0].Content
			coll.add(Item{Prompt: p, InputTokens: tokenizer.Count(p), OutputTokens: c.Request.capOutput(c.SpeedBench.OutputLen)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if want := c.SpeedBench.Category; want != "" && coll.stats.Usable == 0 && len(categories) > 0 {
		return nil, fmt.Errorf("%s: no line of --speed-bench-category %s; its categories are %s", name, want, strings.Join(slices.Sorted(maps.Keys(categories)), ", "))
	}
	return coll.dataset(label)
}
