package workload

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/goodput-dev/goodput/internal/bom"
	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// hfFormat says where one Hugging Face dataset keeps its prompts, as
// `vllm bench serve --dataset-name hf` reads that dataset.
type hfFormat struct {
	// skip says why a row is left out, "" to read it; nil reads every
	// row.
	skip func(row map[string]any, c Config) string
	// prompt returns a row's prompt, or "" to skip the row.
	prompt func(row map[string]any) string
	// system returns a row's system prompt, which chat requests and the
	// chat template take as a message of its own and a completions
	// prompt holds before the prompt, a blank line between; nil for none.
	system func(row map[string]any) string
	// answer returns the reference answer whose length is the output
	// length; nil means the fixed output length below.
	answer func(row map[string]any) string
	output int // output tokens without an answer
	// ownLength keeps the answer's length under --hf-output-len too, as
	// vLLM's next-edit sampler takes no output length.
	ownLength bool
	// With answers, rows outside these bounds (vLLM's is_valid_sequence)
	// are skipped: prompt and answer of at least 4 tokens, prompt at most
	// maxPrompt, both at most maxTotal.
	maxPrompt, maxTotal int
	// bounded keeps the bounds with --hf-output-len too, that length
	// standing for the answer's, and checks them again on the prompt's
	// count once rendered with the chat template (MLPerf's sampler
	// counts the rendered prompt and checks every row).
	bounded bool
	// template is when vLLM renders the prompt with the model's chat
	// template on the client (see Config.ChatTemplate).
	template templateRule
}

// text returns row[key] when it is a string.
func text(row map[string]any, key string) string {
	s, _ := row[key].(string)
	return s
}

// hfTurn returns the text of element i of a list of strings or of
// {"from"/"role", "value"/"content"} messages.
func hfTurn(v any, i int) string {
	list, _ := v.([]any)
	if i >= len(list) {
		return ""
	}
	switch x := list[i].(type) {
	case string:
		return x
	case map[string]any:
		if s := text(x, "value"); s != "" {
			return s
		}
		return text(x, "content")
	}
	return ""
}

var (
	conversationFormat = hfFormat{
		// vLLM keeps conversations of two turns or more, even when
		// --hf-output-len makes the answer's length moot.
		skip: func(r map[string]any, _ Config) string {
			if turns, _ := r["conversations"].([]any); len(turns) < 2 {
				return "of fewer than two turns"
			}
			return ""
		},
		prompt:    func(r map[string]any) string { return hfTurn(r["conversations"], 0) },
		answer:    func(r map[string]any) string { return hfTurn(r["conversations"], 1) },
		maxPrompt: 1024, maxTotal: 2048,
	}
	aimoFormat = hfFormat{
		prompt:    func(r map[string]any) string { return text(r, "problem") },
		answer:    func(r map[string]any) string { return text(r, "solution") },
		maxPrompt: 2048, maxTotal: 32000,
	}
	mlperfFormat = hfFormat{
		// vLLM renders the system prompt and the question as two
		// messages of the chat template.
		prompt:    func(r map[string]any) string { return text(r, "question") },
		system:    func(r map[string]any) string { return text(r, "system_prompt") },
		answer:    func(r map[string]any) string { return text(r, "output") },
		maxPrompt: 1024, maxTotal: 2048, bounded: true,
		template: templateAlways,
	}
)

// fits reports whether a prompt of in tokens asking for out is within the
// format's bounds, as vLLM's is_valid_sequence checks them.
func (f hfFormat) fits(in, out int) bool {
	return in >= 4 && out >= 4 && in <= f.maxPrompt && in+out <= f.maxTotal
}

// FitsRendered reports whether an item of c's dataset, its prompt
// rendered with the chat template and counted again (InputTokens), is
// still within the length bounds vLLM checks on the rendered count:
// MLPerf's. Items of every other dataset fit.
func (c Config) FitsRendered(it Item) bool {
	if c.Dataset != DatasetHF {
		return true
	}
	f, ok := hfFormats[c.hfName()]
	return !ok || !f.bounded || f.fits(it.InputTokens, it.OutputTokens)
}

// hfSystemSep joins a system prompt and the prompt after it in one text.
const hfSystemSep = "\n\n"

// hfFormats are the text datasets `vllm bench serve` knows by name.
var hfFormats = map[string]hfFormat{
	"Aeala/ShareGPT_Vicuna_unfiltered": conversationFormat,
	"likaixin/InstructCoder": {prompt: func(r map[string]any) string {
		if text(r, "instruction") == "" {
			return ""
		}
		return text(r, "input") + "\n\n" + text(r, "instruction") + " Just output the code, do not include any explanation."
	}, output: 200, template: templateUnlessSkipped},
	"philschmid/mt-bench":                  {prompt: func(r map[string]any) string { return hfTurn(r["turns"], 0) }, output: 256, template: templateUnlessSkipped},
	"openai/openai_humaneval":              {prompt: func(r map[string]any) string { return text(r, "prompt") }, output: 256, template: templateUnlessSkipped},
	"openai/gsm8k":                         {prompt: func(r map[string]any) string { return text(r, "question") }, output: 256, template: templateUnlessSkipped},
	"vdaita/edit_5k_char":                  blazeditFormat,
	"vdaita/edit_10k_char":                 blazeditFormat,
	"zed-industries/zeta":                  zetaFormat,
	"AI-MO/aimo-validation-aime":           aimoFormat,
	"AI-MO/NuminaMath-1.5":                 aimoFormat,
	"AI-MO/NuminaMath-CoT":                 aimoFormat,
	"mgoin/mlperf-inference-llama2-data":   mlperfFormat,
	"mgoin/mlperf-inference-llama3.1-data": mlperfFormat,
}

// hfRefused are datasets of vLLM's hf list goodput cannot send, with why.
var hfRefused = map[string]string{
	"lmarena-ai/VisionArena-Chat":        "multimodal datasets are not supported",
	"lmarena-ai/vision-arena-bench-v0.1": "multimodal datasets are not supported",
	"lmms-lab/LLaVA-OneVision-Data":      "multimodal datasets are not supported",
	"yale-nlp/MMVU":                      "multimodal datasets are not supported",
	"Lin-Chen/MMStar":                    "multimodal datasets are not supported",
	"openslr/librispeech_asr":            "audio datasets are not supported",
	"facebook/voxpopuli":                 "audio datasets are not supported",
	"LIUM/tedlium":                       "audio datasets are not supported",
	"edinburghcstr/ami":                  "audio datasets are not supported",
	"speechcolab/gigaspeech":             "audio datasets are not supported",
	"kensho/spgispeech":                  "audio datasets are not supported",
}

// refusedHF returns why goodput cannot send the named dataset, or "".
func refusedHF(name string) string { return hfRefused[name] }

// hfName is the dataset's hub id: --hf-name, else the path when it reads
// as one.
func (c Config) hfName() string {
	if c.HF.Name != "" {
		return c.HF.Name
	}
	return c.Path
}

// genericPromptKeys are the columns tried, in order, for a dataset goodput
// does not know by name.
var genericPromptKeys = []string{"prompt", "question", "problem", "instruction", "input", "text"}

// genericFormat finds the prompt in the first column of genericPromptKeys
// a row has, or the first turn of "conversations" or "turns".
var genericFormat = hfFormat{prompt: func(r map[string]any) string {
	for _, k := range genericPromptKeys {
		if s := text(r, k); s != "" {
			return s
		}
	}
	if s := hfTurn(r["conversations"], 0); s != "" {
		return s
	}
	return hfTurn(r["turns"], 0)
}, output: 256}

// OpenHF reads a local file of a Hugging Face dataset (--dataset-name hf):
// JSON Lines, a JSON array, or Parquet (by the .parquet extension). The
// dataset's id (--hf-name, or the path) picks how rows become prompts, as
// vLLM reads that dataset: ShareGPT conversations (the first turn, and
// the second's length as the output length), InstructCoder, MT-Bench,
// HumanEval, GSM8K, the AIMO and NuminaMath sets, MLPerf, Blazedit and
// Zed's next-edit set. Any other dataset takes its prompt from the first
// of the columns prompt, question, problem, instruction, input, text, or
// the first turn of conversations or turns, and asks for 256 tokens.
// --hf-output-len replaces every output length but the next-edit set's,
// as in vLLM. Lengths count
// on the built-in tokenizer; where vLLM applies the model's chat template
// to these prompts on the client (see Config.ChatTemplate), the runner
// renders them with the server's and counts them again.
func OpenHF(c Config) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.isBFCL() {
		return openBFCL(c)
	}
	format, known := hfFormats[c.hfName()]
	if !known {
		format = genericFormat
	}
	where := c.Path
	if n := len(c.HF.Files); n > 1 {
		where = fmt.Sprintf("%d files: %s …", n, c.Path)
	}
	label := "hf " + where
	if c.HF.Name != "" {
		label = "hf " + c.HF.Name + " (" + where + ")"
	}
	coll := newCollector(c)
	add := func(row map[string]any) {
		coll.entry()
		if format.skip != nil {
			if why := format.skip(row, c); why != "" {
				coll.skip(why)
				return
			}
		}
		p := format.prompt(row)
		if p == "" {
			coll.skip("without a prompt")
			return
		}
		it := Item{Prompt: p}
		if format.system != nil {
			if sys := format.system(row); sys != "" {
				it = Item{Prompt: sys + hfSystemSep + p, System: sys, SystemSep: hfSystemSep}
			} else {
				it.EmptySystem = true // vLLM sends the system message, empty
			}
		}
		in := tokenizer.Count(it.Prompt)
		out := c.HF.OutputLen
		if (out == 0 || format.ownLength) && format.answer != nil {
			out = tokenizer.Count(format.answer(row))
		}
		if format.maxTotal > 0 && (c.HF.OutputLen == 0 || format.bounded) && !format.fits(in, out) {
			coll.skip("outside vLLM's length bounds")
			return
		}
		if out == 0 {
			out = format.output
		}
		it.InputTokens, it.OutputTokens = in, c.Request.capOutput(min(out, MaxOutputTokens))
		coll.add(it)
	}
	files := c.HF.Files
	if len(files) == 0 {
		files = []string{c.Path}
	}
	for _, path := range files {
		var err error
		if strings.EqualFold(filepath.Ext(path), ".parquet") {
			err = readParquetRows(path, add)
		} else {
			err = readJSONRows(path, add)
		}
		if err != nil {
			return nil, err
		}
	}
	return coll.dataset(label)
}

// readJSONRows calls add for every object of a JSON Lines file, or of a
// file holding one JSON array of objects.
func readJSONRows(path string, add func(map[string]any)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(bom.Skip(f), 1<<16)
	first, err := peekNonSpace(br)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if first == '[' {
		dec := json.NewDecoder(br)
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		n := 0
		for ; dec.More(); n++ {
			var raw json.RawMessage
			var row map[string]any
			if err := dec.Decode(&raw); err != nil {
				return fmt.Errorf("%s: entry %d (byte %d): %w", path, n, dec.InputOffset(), err)
			}
			if err := jsonerr.Unmarshal(raw, &row); err != nil {
				return fmt.Errorf("%s: entry %d (byte %d): %w", path, n, dec.InputOffset(), jsonerr.Plain(err))
			}
			add(row)
		}
		// The array must end, and the file with it: a file cut short or
		// with more after the array is not read as if whole.
		if _, err := token(dec); err != nil {
			return fmt.Errorf("%s: after entry %d (byte %d): %w", path, n, dec.InputOffset(), err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("%s: byte %d: unexpected data after the array", path, dec.InputOffset())
		}
		return nil
	}
	return EachLine(br, path, func(_ int, b []byte) error {
		var row map[string]any
		if err := jsonerr.Unmarshal(b, &row); err != nil {
			return jsonerr.Plain(err)
		}
		add(row)
		return nil
	})
}

// peekNonSpace returns the first byte that is not white space, leaving it
// unread; io.EOF for an empty file.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("empty file, want JSON Lines, a JSON array or Parquet")
			}
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, br.UnreadByte()
		}
	}
}

// readParquetRows calls add for every row of a Parquet file, as a map
// shaped as JSON would decode it.
func readParquetRows(path string, add func(map[string]any)) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		// The Parquet library panics on files whose footer or pages lie
		// about their contents, opening them as well as reading them;
		// that is bad input, not a bug here.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: unreadable Parquet data: %v", path, p)
		}
	}()
	if err := checkParquetFrame(f, fi.Size()); err != nil {
		return fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	// Reading rows in order needs neither the page index nor the bloom
	// filters, and both are read at offsets and lengths the file states.
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	if err := checkParquetPages(f, fi.Size(), pf.Metadata()); err != nil {
		return fmt.Errorf("%s: unreadable Parquet data: %w", path, err)
	}
	r := parquet.NewGenericReader[map[string]any](pf, pf.Schema())
	defer r.Close()
	rows := make([]map[string]any, 128)
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for {
		// add keeps nothing of a row, so its map is cleared and reused: a
		// file of many empty rows costs no allocation per row.
		for _, row := range rows {
			clear(row)
		}
		n, err := r.Read(rows)
		for _, row := range rows[:n] {
			add(row)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if n == 0 {
			// A reader that neither reads nor ends would loop for ever.
			return fmt.Errorf("%s: unreadable Parquet data: no rows and no end", path)
		}
	}
}
