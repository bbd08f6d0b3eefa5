package backend

import (
	"errors"
	"fmt"
)

// Sampling holds the sampling parameters of a request. Nil fields are not
// sent, so the server's defaults apply; `vllm bench serve` behaves the
// same, and sets nothing unless asked.
type Sampling struct {
	Temperature       *float64
	TopP              *float64
	TopK              *int
	MinP              *float64
	FrequencyPenalty  *float64
	PresencePenalty   *float64
	RepetitionPenalty *float64
}

// IsZero reports whether no parameter is set.
func (s Sampling) IsZero() bool { return s == Sampling{} }

// samplingField is one parameter and its name in each protocol's body; ""
// means the protocol has no such parameter.
type samplingField struct {
	flag                                     string // the flag that sets it, for errors
	openai, responses, tgi, llamacpp, ollama string
	value                                    func(Sampling) any // nil when unset
}

func floatField(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func intField(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// samplingFields maps each parameter to the protocols' names: OpenAI (with
// vLLM's top_k, min_p and repetition_penalty extensions), the Responses
// API (vLLM's takes the same extensions but min_p), TGI's parameters,
// llama.cpp's /completion and Ollama's options.
var samplingFields = []samplingField{
	{"--temperature", "temperature", "temperature", "temperature", "temperature", "temperature", func(s Sampling) any { return floatField(s.Temperature) }},
	{"--top-p", "top_p", "top_p", "top_p", "top_p", "top_p", func(s Sampling) any { return floatField(s.TopP) }},
	{"--top-k", "top_k", "top_k", "top_k", "top_k", "top_k", func(s Sampling) any { return intField(s.TopK) }},
	{"--min-p", "min_p", "", "", "min_p", "min_p", func(s Sampling) any { return floatField(s.MinP) }},
	{"--frequency-penalty", "frequency_penalty", "frequency_penalty", "frequency_penalty", "frequency_penalty", "frequency_penalty", func(s Sampling) any { return floatField(s.FrequencyPenalty) }},
	{"--presence-penalty", "presence_penalty", "presence_penalty", "", "presence_penalty", "presence_penalty", func(s Sampling) any { return floatField(s.PresencePenalty) }},
	{"--repetition-penalty", "repetition_penalty", "repetition_penalty", "repetition_penalty", "repeat_penalty", "repeat_penalty", func(s Sampling) any { return floatField(s.RepetitionPenalty) }},
}

// applyOptions adds the request's sampling parameters, logprobs and chat
// template kwargs to body in the protocol's fields. A setting the protocol
// has no field for is an error naming its flag, rather than a different
// workload measured quietly.
func (a *Adapter) applyOptions(req *Request, body map[string]any) error {
	var errs []error
	// Where the parameters go: the top level, or a nested object.
	target := body
	switch a.name {
	case "tgi":
		target = subObject(body, "parameters")
	case "ollama":
		if !req.Sampling.IsZero() {
			target = subObject(body, "options")
		}
	}
	for _, f := range samplingFields {
		v := f.value(req.Sampling)
		if v == nil {
			continue
		}
		name := f.openai
		switch a.name {
		case "openai-responses":
			name = f.responses
		case "tgi":
			name = f.tgi
		case "llamacpp":
			name = f.llamacpp
		case "ollama":
			name = f.ollama
		}
		if name == "" {
			errs = append(errs, fmt.Errorf("%s is not supported by %s (%s has no such parameter); send what the server accepts with --extra-body", f.flag, a.name, a.endpoint))
			continue
		}
		target[name] = v
	}
	if req.Logprobs != nil {
		switch a.name {
		case "openai":
			body["logprobs"] = *req.Logprobs
		case "openai-chat":
			body["logprobs"] = true
			body["top_logprobs"] = *req.Logprobs
		case "llamacpp":
			body["n_probs"] = *req.Logprobs
		default:
			errs = append(errs, unsupported(a, "--logprobs", true))
		}
	}
	if req.ChatTemplateKwargs != nil {
		if a.name != "openai-chat" {
			errs = append(errs, fmt.Errorf("--chat-template-kwargs needs a chat endpoint (backend openai-chat), where the server applies its template; %s sends the prompt as is", a.name))
		} else {
			body["chat_template_kwargs"] = req.ChatTemplateKwargs
		}
	}
	return errors.Join(errs...)
}

// subObject returns body[key] as an object, making it when absent.
func subObject(body map[string]any, key string) map[string]any {
	if m, ok := body[key].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	body[key] = m
	return m
}
