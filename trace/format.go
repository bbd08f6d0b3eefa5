package trace

import (
	"bytes"
	"fmt"
	"strings"
)

// Format names a trace's file format, the values of --trace-format.
type Format string

// Trace formats.
const (
	// FormatAuto sniffs the format from the file's first line.
	FormatAuto Format = ""
	// FormatMooncake is Mooncake's JSON Lines (kvcache-ai/Mooncake,
	// FAST'25): {"timestamp": ms, "input_length", "output_length",
	// "hash_ids": [...]}, one id per 512-token prefix block.
	FormatMooncake Format = "mooncake"
	// FormatAzure is the Azure LLM inference trace's CSV (Azure/
	// AzurePublicDataset, 2023 and 2024): TIMESTAMP (wall clock, no time
	// zone), ContextTokens, GeneratedTokens.
	FormatAzure Format = "azure"
	// FormatBurstGPT is BurstGPT's CSV (HPMLL/BurstGPT): Timestamp
	// (seconds), Model, Request tokens, Response tokens, Total tokens, Log
	// Type. Rows with no response tokens are failed requests and are skipped.
	FormatBurstGPT Format = "burstgpt"
	// FormatJSONL is goodput's own JSON Lines: {"time": seconds,
	// "input_tokens", "output_tokens", "prompt", "hash_ids"}, where a
	// prompt may replace input_tokens and hash_ids are optional.
	FormatJSONL Format = "jsonl"
	// FormatTimed is vLLM's timed_trace (--dataset-name timed_trace): JSON
	// Lines like Mooncake's whose field names and time unit are options
	// (see Timed), one id per 16-token chunk by default. It is not a
	// --trace-format: the dataset names it, with its own flags.
	FormatTimed Format = "timed_trace"
)

// Formats lists the formats, for messages and help.
const Formats = "mooncake, azure, burstgpt or jsonl"

// ParseFormat returns the format named s ("" or "auto" to sniff it).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "auto":
		return FormatAuto, nil
	case FormatAuto, FormatMooncake, FormatAzure, FormatBurstGPT, FormatJSONL:
		return f, nil
	}
	return "", fmt.Errorf("--trace-format %q is unknown: want %s", s, Formats)
}

// Sniff tells a trace's format from its first non-blank line: a CSV header
// names Azure's or BurstGPT's columns, and a JSON object Mooncake's keys or
// goodput's own. It fails, saying what the line looks like, for anything
// else.
func Sniff(first []byte) (Format, error) {
	line := bytes.TrimSpace(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")))
	switch {
	case len(line) == 0:
		return "", fmt.Errorf("the file is empty")
	case line[0] == '{':
		if bytes.Contains(line, []byte(`"input_length"`)) || bytes.Contains(line, []byte(`"output_length"`)) {
			return FormatMooncake, nil
		}
		if bytes.Contains(line, []byte(`"time"`)) {
			return FormatJSONL, nil
		}
		return "", fmt.Errorf(`the first line is a JSON object with neither Mooncake's "input_length" nor goodput's "time": give --trace-format`)
	}
	head := strings.ToLower(string(line))
	switch {
	case strings.Contains(head, "contexttokens") && strings.Contains(head, "generatedtokens"):
		return FormatAzure, nil
	case strings.Contains(head, "request tokens") && strings.Contains(head, "response tokens"):
		return FormatBurstGPT, nil
	}
	return "", fmt.Errorf("the first line %q is neither JSON nor the CSV header of an Azure or BurstGPT trace: give --trace-format", shorten(line, 60))
}

// shorten cuts b to at most n bytes for a message.
func shorten(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
