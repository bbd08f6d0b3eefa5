package workload

import (
	"fmt"
	"math"
	"strings"
)

// The code-editing datasets of vLLM's hf list: Blazedit's change requests
// and Zed's next-edit predictions. Their prompts are vLLM's: each wraps a
// row's fields in the words of its sampler's template.

// blazeditFormat reads vdaita/edit_5k_char and edit_10k_char: a file of
// code and a change to make to it, the rows whose normalised edit
// distance lies within --blazedit-min-distance and --blazedit-max-distance,
// asking for 4,000 tokens (the new file), rendered with the chat template
// unless --skip-chat-template.
var blazeditFormat = hfFormat{
	skip: func(r map[string]any, c Config) string {
		d, ok := number(r["norm_distance"])
		switch {
		case !ok:
			return `without a numeric "norm_distance"`
		case d < c.HF.BlazeditMinDistance || d > c.HF.BlazeditMaxDistance:
			return "outside --blazedit-min-distance and --blazedit-max-distance"
		}
		return ""
	},
	prompt: func(r map[string]any) string {
		code, change := text(r, "code"), text(r, "change_request")
		if code == "" || change == "" {
			return ""
		}
		return "Given a code file, please apply the change requests and generate the new file.\n\n" +
			"Original file:\n```python\n" + code + "\n```\n\n" +
			"Change request:\n" + change + "\n\n" +
			`Please generate the new code file in the "New file" section below.`
	},
	output:   4000,
	template: templateUnlessSkipped,
}

// zetaFormat reads zed-industries/zeta: the user's edits and an excerpt
// around the cursor, asking for as many tokens as the expected rewrite
// holds from its editable-region marker (--hf-output-len is not read, as
// vLLM's sampler takes none); sent bare.
var zetaFormat = hfFormat{
	prompt: func(r map[string]any) string {
		events, input := text(r, "events"), text(r, "input")
		if input == "" {
			return ""
		}
		return "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.\n\n" +
			"### User Edits:\n\n" + events + "\n\n### User Excerpt:\n\n" + input + "\n\n### Response:\n\n"
	},
	answer: func(r map[string]any) string {
		out := text(r, "output")
		// vLLM cuts at the marker with Python's str.find, whose -1 for
		// no marker keeps the last character alone.
		if i := strings.Index(out, "<|editable_region_start|>"); i >= 0 {
			return out[i:]
		} else if out != "" {
			return out[len(out)-1:]
		}
		return ""
	},
	ownLength: true,
}

// number returns v as a float64 when it is a number of a JSON document or
// a Parquet column.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// validateBlazedit checks the distance bounds of the Blazedit dataset.
func (h HFConfig) validateBlazedit() []error {
	var errs []error
	for _, b := range []struct {
		flag string
		v    float64
	}{{"--blazedit-min-distance", h.BlazeditMinDistance}, {"--blazedit-max-distance", h.BlazeditMaxDistance}} {
		if math.IsNaN(b.v) || math.IsInf(b.v, 0) {
			errs = append(errs, fmt.Errorf("%s %v: want a number, a normalised edit distance (0 to 1)", b.flag, b.v))
		}
	}
	if len(errs) == 0 && h.BlazeditMinDistance > h.BlazeditMaxDistance {
		errs = append(errs, fmt.Errorf("--blazedit-min-distance %g is above --blazedit-max-distance %g: no row could be sent", h.BlazeditMinDistance, h.BlazeditMaxDistance))
	}
	return errs
}
