package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// flagLine matches the first line of a flag in pflag's usage text:
// "  -o, --output string   file to write" or "      --quiet   no progress".
var flagLine = regexp.MustCompile(`^\s+(?:-\S, )?--([A-Za-z0-9][-A-Za-z0-9_]*)`)

// Help groups, in the order --help lists them.
const (
	groupTarget    = "Target"
	groupLoad      = "Load"
	groupWorkload  = "Workload"
	groupSLO       = "SLO and metrics"
	groupSearch    = "SLO search"
	groupOutput    = "Output"
	groupSimulator = "Simulator"
	groupHelp      = "Help"
	groupOther     = "Other"
)

var groupOrder = []string{groupTarget, groupLoad, groupWorkload, groupSLO, groupSearch, groupOutput, groupSimulator, groupOther, groupHelp}

// flagGroups says under which heading --help lists each flag of the
// commands that send load. A flag is placed by name, not by where it is
// registered, so that a flag added anywhere lands under its heading; a
// flag missing from the table is listed under Other, and the test of this
// table fails until it is placed.
var flagGroups = map[string]string{
	// Where the load goes and how each request is made.
	"base-url": groupTarget, "endpoint": groupTarget, "backend": groupTarget, "model": groupTarget,
	"header": groupTarget, "api-key": groupTarget, "extra-body": groupTarget, "usage": groupTarget, "max-tokens-field": groupTarget,
	"insecure": groupTarget, "keepalive": groupTarget, "transport": groupTarget, "dial-ahead": groupTarget, "request-timeout": groupTarget, "ready-check-timeout": groupTarget,
	"metrics-url": groupTarget, "no-server-metrics": groupTarget, "scrape-interval": groupTarget,
	"base-url-file": groupTarget, "balance": groupTarget, "session-header": groupTarget,

	// How much load, when, and how a sweep chooses its loads.
	"request-rate": groupLoad, "burstiness": groupLoad, "arrival": groupLoad,
	"ramp-up-strategy": groupLoad, "ramp-up-start-rps": groupLoad, "ramp-up-duration": groupLoad,
	"probe-request-rate": groupLoad, "max-concurrency": groupLoad, "num-prompts": groupLoad, "duration": groupLoad, "seed": groupLoad,
	"shard": groupLoad, "shards": groupLoad, "start-at": groupLoad, "num-warmups": groupLoad,
	"warmup-seconds": groupLoad, "warmup-first": groupLoad, "lag-threshold": groupLoad,
	"concurrency": groupLoad, "points": groupLoad, "refine": groupLoad, "spacing": groupLoad,
	"auto-max-concurrency": groupLoad, "repeats": groupLoad, "no-early-stop": groupLoad, "early-stop": groupLoad,
	"min-rounds": groupLoad, "idle-timeout": groupLoad,

	// What is asked.
	"dataset-name": groupWorkload, "dataset-path": groupWorkload, "random-input-len": groupWorkload,
	"random-output-len": groupWorkload, "random-range-ratio": groupWorkload, "random-prefix-len": groupWorkload, "traffic-scenario": groupWorkload,
	"custom-output-len": groupWorkload, "disable-shuffle": groupWorkload, "ignore-eos": groupWorkload,
	"min-tokens": groupWorkload, "max-tokens": groupWorkload, "no-calibrate": groupWorkload,
	"prompt-format": groupWorkload, "trace-format": groupWorkload, "trace-start": groupWorkload,
	"trace-duration": groupWorkload, "trace-block-size": groupWorkload, "trace-length-scale": groupWorkload,
	"trace-speedup": groupLoad, "system-prompts": groupWorkload, "same-prompts": groupWorkload, "system-prompt-len": groupWorkload,
	"system-prompt-zipf": groupWorkload, "think-time": groupWorkload,
	"multi-turn": groupWorkload, "session-turns": groupWorkload, "session-max-turns": groupWorkload,
	"timed-trace-label-timestamp": groupWorkload, "timed-trace-label-input-length": groupWorkload,
	"timed-trace-label-output-length": groupWorkload, "timed-trace-label-hash-ids": groupWorkload,
	"timed-trace-sec-multiplier": groupWorkload, "timed-trace-chunk-hash-size": groupWorkload,
	"self-timed": groupLoad, "no-self-timed": groupLoad,

	// How the numbers are judged.
	"goodput": groupSLO, "slo": groupSLO, "gate": groupSLO, "metric-percentiles": groupSLO,
	"percentile-method": groupSLO, "include-warmup": groupSLO, "attainment": groupSLO,
	"knee-latency": groupSLO,

	"search": groupSearch, "search-tolerance": groupSearch, "search-max-probes": groupSearch,
	"search-limit": groupSearch,

	// Where the results go.
	"result-dir": groupOutput, "run-name": groupOutput, "save-result": groupOutput, "format": groupOutput,
	"quiet": groupOutput, "report": groupOutput, "dry-run": groupOutput, "resume": groupOutput,
	"label": groupOutput, "overwrite": groupOutput, "ignore-write-errors": groupOutput,
	"history": groupOutput, "metrics-listen": groupOutput, "metrics-linger": groupOutput,
	"metrics-push": groupOutput, "metrics-push-instance": groupOutput, "metrics-push-interval": groupOutput,

	// The built-in simulator.
	"sim-gpu": groupSimulator, "sim-model": groupSimulator, "sim-profile": groupSimulator,
	"sim-tensor-parallel-size": groupSimulator, "sim-fault": groupSimulator, "sim-seed": groupSimulator,
	"virtual": groupSimulator, "sim-replicas": groupSimulator, "sim-reasoning": groupSimulator,
	"sim-max-num-seqs": groupSimulator, "sim-max-num-batched-tokens": groupSimulator, "sim-gpu-memory-utilization": groupSimulator,
	"sim-block-size": groupSimulator, "sim-enable-chunked-prefill": groupSimulator, "sim-enable-prefix-caching": groupSimulator,
	"sim-kv-cache-dtype": groupSimulator,

	"help": groupHelp,

	// Flags of vllm bench serve that bench takes with vLLM's meaning.
	"host": groupTarget, "port": groupTarget, "served-model-name": groupTarget, "request-id-prefix": groupTarget,
	"temperature": groupTarget, "top-p": groupTarget, "top-k": groupTarget, "min-p": groupTarget,
	"frequency-penalty": groupTarget, "presence-penalty": groupTarget, "repetition-penalty": groupTarget,
	"logprobs": groupTarget, "chat-template-kwargs": groupTarget, "lora-modules": groupTarget,
	"lora-assignment": groupTarget, "profile": groupTarget, "stream": groupTarget,
	"ramp-up-end-rps": groupLoad,
	"input-len":       groupWorkload, "output-len": groupWorkload, "no-oversample": groupWorkload,
	"tokenizer": groupWorkload, "tokenizer-mode": groupWorkload, "trust-remote-code": groupWorkload,
	"skip-tokenizer-init": groupWorkload, "sharegpt-output-len": groupWorkload,
	"sharegpt-min-input-len": groupWorkload, "sharegpt-min-output-len": groupWorkload, "sharegpt-max-input-len": groupWorkload, "sharegpt-max-total-len": groupWorkload,
	"skip-chat-template": groupWorkload, "sonnet-input-len": groupWorkload, "sonnet-output-len": groupWorkload, "sonnet-prefix-len": groupWorkload,
	"prefix-repetition-prefix-len": groupWorkload, "prefix-repetition-suffix-len": groupWorkload,
	"prefix-repetition-num-prefixes": groupWorkload, "prefix-repetition-output-len": groupWorkload,
	"spec-bench-output-len": groupWorkload, "spec-bench-category": groupWorkload,
	"speed-bench-dataset-subset": groupWorkload, "speed-bench-category": groupWorkload, "speed-bench-output-len": groupWorkload,
	"bfcl-categories": groupWorkload, "blazedit-min-distance": groupWorkload, "blazedit-max-distance": groupWorkload,
	"hf-name": groupWorkload, "hf-output-len": groupWorkload, "hf-split": groupWorkload, "hf-subset": groupWorkload,
	"percentile-metrics": groupSLO,
	"save-detailed":      groupOutput, "append-result": groupOutput, "result-filename": groupOutput,
	"metadata": groupOutput, "record-label": groupOutput, "plot-timeline": groupOutput, "plot-dataset-stats": groupOutput,
	"timeline-itl-thresholds": groupOutput,
}

// loadCommands are the commands whose --help groups their flags: they
// share most of theirs, and have too many for one list.
var loadCommands = map[string]bool{"bench": true, "sweep": true}

// groupFlagHelp makes cmd's --help list its flags under the headings of
// flagGroups instead of in one alphabetical list.
func groupFlagHelp(cmd *cobra.Command) {
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		_, err := fmt.Fprint(c.OutOrStderr(), groupedUsage(c))
		return err
	})
}

// groupedUsage is cobra's usage text with the flags under their headings.
func groupedUsage(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString("Usage:\n  " + c.UseLine() + "\n")
	if c.HasAvailableSubCommands() {
		b.WriteString("  " + c.CommandPath() + " [command]\n\nCommands:\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				fmt.Fprintf(&b, "  %-*s %s\n", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasExample() {
		b.WriteString("\nExamples:\n" + c.Example + "\n")
	}
	// The flags are written once, aligned together, then sorted under
	// their headings line by line.
	lines := map[string][]string{}
	name := ""
	for _, line := range strings.SplitAfter(c.LocalFlags().FlagUsages(), "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			name = m[1]
		}
		if name == "" || line == "" {
			continue
		}
		g, ok := flagGroups[name]
		if !ok {
			g = groupOther
		}
		lines[g] = append(lines[g], line)
	}
	for _, g := range groupOrder {
		if ls := lines[g]; len(ls) > 0 {
			fmt.Fprintf(&b, "\n%s flags:\n%s", g, strings.Join(ls, ""))
		}
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\nGlobal flags:\n%s", c.InheritedFlags().FlagUsages())
	}
	return b.String()
}
