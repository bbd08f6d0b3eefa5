package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/internal/bom"
	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer"
)

// bfclID is the hub id of the Berkeley Function-Calling Leaderboard, the
// tool-calling dataset of vLLM's hf list.
const bfclID = "gorilla-llm/Berkeley-Function-Calling-Leaderboard"

// BFCLDefaultCategories are the categories vLLM reads without
// --bfcl-categories.
var BFCLDefaultCategories = []string{"simple", "live_simple", "multiple"}

// bfclOutputLen is what a BFCL request asks for without --hf-output-len.
const bfclOutputLen = 512

// isBFCL reports whether c reads the BFCL dataset.
func (c Config) isBFCL() bool { return c.Dataset == DatasetHF && c.hfName() == bfclID }

// NeedsChat returns why c's requests can go only to a chat completions
// endpoint (backend openai-chat), or "" when they are not bound to one:
// the BFCL dataset sends tools, and vLLM sends it with openai-chat alone.
func (c Config) NeedsChat() string {
	if c.isBFCL() {
		return "the BFCL dataset sends each row's functions as tools, which vLLM sends with --backend openai-chat alone"
	}
	return ""
}

// bfclFile is the file of one category in the dataset's repository.
func bfclFile(category string) string { return "BFCL_v3_" + category + ".json" }

// openBFCL reads the BFCL dataset as `vllm bench serve` does: from
// --dataset-path, the directory holding the repository's BFCL_v3_<category>.json
// files (JSON Lines despite the name), one file per category of
// --bfcl-categories; the categories' rows taken in turn, one of each. A
// row's first turn is the conversation sent (its messages as they are,
// a system message included), its functions the request's tools with
// tool_choice "auto", their parameter types in JSON Schema's names
// (dict, float, tuple and any become object, number, array and string),
// asking for --hf-output-len tokens (512). Rows without a question or a
// function are skipped; a file that is not there names the category and
// how to get it.
func openBFCL(c Config) (*Dataset, error) {
	cats := c.HF.BFCLCategories
	if len(cats) == 0 {
		cats = BFCLDefaultCategories
	}
	out := c.HF.OutputLen
	if out == 0 {
		out = bfclOutputLen
	}
	coll := newCollector(c)
	perCategory := make([][]Item, len(cats))
	for i, cat := range cats {
		path := filepath.Join(c.Path, bfclFile(cat))
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--bfcl-categories %s: no %s in --dataset-path %s: download it (huggingface-cli download --repo-type dataset %s %s --local-dir %s)",
				cat, bfclFile(cat), c.Path, bfclID, bfclFile(cat), c.Path)
		}
		if err != nil {
			return nil, fmt.Errorf("--dataset-path: %w", err)
		}
		err = EachLine(bom.Skip(f), path, func(_ int, text []byte) error {
			coll.entry()
			it, why, err := bfclItem(text)
			switch {
			case err != nil:
				return err
			case why != "":
				coll.skip(why)
			default:
				it.OutputTokens = c.Request.capOutput(min(out, MaxOutputTokens))
				perCategory[i] = append(perCategory[i], it)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	// Row k of every category in turn, as vLLM interleaves them.
	for k := 0; ; k++ {
		more := false
		for _, items := range perCategory {
			if k < len(items) {
				coll.add(items[k])
				more = true
			}
		}
		if !more {
			break
		}
	}
	return coll.dataset("hf " + bfclID + " (" + strings.Join(cats, ", ") + ")")
}

// bfclItem reads one row: the item, or why the row is skipped, or an
// error for a row that is not JSON of the dataset's shape.
func bfclItem(text []byte) (Item, string, error) {
	var row struct {
		Question [][]Message     `json:"question"`
		Function json.RawMessage `json:"function"`
	}
	if err := jsonerr.Unmarshal(text, &row); err != nil {
		return Item{}, "", jsonerr.Plain(err)
	}
	if len(row.Question) == 0 || len(row.Question[0]) == 0 {
		return Item{}, "without a question", nil
	}
	var fns any
	if err := json.Unmarshal(row.Function, &fns); err != nil || fns == nil {
		return Item{}, "without a function", nil
	}
	list, ok := fns.([]any)
	if !ok {
		list = []any{fns} // one function, not in a list
	}
	if len(list) == 0 {
		return Item{}, "without a function", nil
	}
	tools := make([]any, len(list))
	for i, fn := range list {
		tools[i] = map[string]any{"type": "function", "function": schemaTypes(fn)}
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		return Item{}, "", err
	}
	msgs := row.Question[0]
	var all strings.Builder
	for _, m := range msgs {
		all.WriteString(m.Content)
		all.WriteByte('\n')
	}
	all.Write(raw)
	return Item{Prompt: msgs[len(msgs)-1].Content, Conversation: msgs, Tools: raw, InputTokens: tokenizer.Count(all.String())}, "", nil
}

// schemaTypes returns v with every string "type" of an object renamed from
// BFCL's Python names to JSON Schema's, as vLLM renames them.
func schemaTypes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && k == "type" {
				if to, ok := bfclTypes[s]; ok {
					e = to
				}
			} else {
				e = schemaTypes(e)
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = schemaTypes(e)
		}
		return out
	}
	return v
}

// bfclTypes are BFCL's parameter types that JSON Schema names otherwise.
var bfclTypes = map[string]string{"dict": "object", "float": "number", "tuple": "array", "any": "string"}
