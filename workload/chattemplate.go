package workload

import (
	"fmt"
	"maps"
)

// templateRule is when `vllm bench serve` renders a dataset's prompts with
// the model's chat template on the client.
type templateRule uint8

const (
	templateNever         templateRule = iota
	templateUnlessSkipped              // unless --skip-chat-template
	templateAlways                     // whatever the flags and the backend
)

// ClientTemplate is what `vllm bench serve` does about the chat template
// for one dataset and backend: whether it renders every prompt with the
// model's template before sending it, and the sentence that says why for
// the run's notes ("" where the template is no concern of the client).
// Kwargs says whether vLLM passes --chat-template-kwargs to that
// rendering: for the custom and speed_bench datasets alone
// (vllm-project/vllm#44244; its sonnet, spec_bench and hf samplers render
// without them).
type ClientTemplate struct {
	Apply  bool
	Why    string
	Kwargs bool
}

// ChatTemplate says whether `vllm bench serve` would render c's prompts
// with the model's chat template on the client when they go to the
// backend named backendName (goodput's canonical name: openai,
// openai-chat, openai-responses, tgi, llamacpp, ollama), as vLLM's
// get_samples and its datasets' sample methods decide:
//
//   - sonnet: for every backend but openai-chat; --skip-chat-template is
//     not read;
//   - custom: unless --skip-chat-template, whatever the backend, a chat one
//     too (the server then applies its template again);
//   - spec_bench: always (vLLM passes its sampler no skip flag);
//   - speed_bench: unless --skip-chat-template, whatever the backend, as
//     custom (its sampler is the custom dataset's);
//   - hf: InstructCoder, MT-Bench, HumanEval, GSM8K and Blazedit unless
//     --skip-chat-template, MLPerf always, the others never;
//   - every other dataset: never.
//
// Ollama's native API applies the model's template itself, as a chat
// endpoint does, so sonnet is not rendered for it. The caller renders
// the prompts where Apply is set (goodput asks the server for its
// template) and must count the rendered text as the server will.
func (c Config) ChatTemplate(backendName string) ClientTemplate {
	rule, what := templateNever, c.Dataset
	switch c.Dataset {
	case DatasetSonnet:
		if backendName == "openai-chat" || backendName == "ollama" {
			return ClientTemplate{Why: fmt.Sprintf("the sonnet prompts go bare to %s, whose server applies its chat template, as vLLM sends them", backendName)}
		}
		rule = templateAlways
	case DatasetCustom:
		rule = templateUnlessSkipped
	case DatasetSpecBench:
		rule = templateAlways
	case DatasetSpeedBench:
		rule = templateUnlessSkipped
	case DatasetHF:
		if f, ok := hfFormats[c.hfName()]; ok {
			rule = f.template
		}
		what = "hf " + c.hfName()
	}
	switch {
	case rule == templateNever:
		return ClientTemplate{}
	case rule == templateUnlessSkipped && c.SkipChatTemplate:
		return ClientTemplate{Why: fmt.Sprintf("the %s prompts go bare (--skip-chat-template)", what)}
	}
	why := fmt.Sprintf("vllm bench serve renders the %s prompts with the model's chat template on the client for backend %s", what, backendName)
	if c.SkipChatTemplate {
		why += ", --skip-chat-template notwithstanding (vLLM does not read it for this dataset)"
	}
	return ClientTemplate{Apply: true, Why: why, Kwargs: c.Dataset == DatasetCustom || c.Dataset == DatasetSpeedBench}
}

// WithItems returns a copy of d whose items are f of d's, in the same
// order; its name and statistics are d's. f must not keep the item.
func (d *Dataset) WithItems(f func(Item) Item) *Dataset {
	out := &Dataset{name: d.name, items: make([]Item, len(d.items)), stats: d.stats}
	for i, it := range d.items {
		out.items[i] = f(it)
	}
	return out
}

// Keep returns a copy of d holding the items keep accepts, in the same
// order, the others counted as skipped for why; nil when it accepts
// none. d is unchanged.
func (d *Dataset) Keep(keep func(Item) bool, why string) *Dataset {
	out := &Dataset{name: d.name, stats: d.stats}
	out.stats.Skipped = maps.Clone(d.stats.Skipped)
	for _, it := range d.items {
		if keep(it) {
			out.items = append(out.items, it)
			continue
		}
		if out.stats.Skipped == nil {
			out.stats.Skipped = map[string]int{}
		}
		out.stats.Skipped[why]++
		out.stats.Usable--
	}
	if len(out.items) == 0 {
		return nil
	}
	out.stats.Kept = len(out.items)
	return out
}
