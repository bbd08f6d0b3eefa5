// Package vllmargs maps a `vllm bench serve` command line onto the flags of
// `goodput bench`, so that a script written for vLLM's client runs with only
// the command name changed.
//
// vLLM parses its command line with Python's argparse, which goodput's flag
// parser does not imitate: a flag may be abbreviated to any unambiguous
// prefix (--random-input for --random-input-len), spelled with underscores
// (--dataset_path), and some flags take several values in a row (--header
// a=b c=d, --goodput ttft:500 tpot:50, --metadata k=v …). Translate rewrites
// such a command line into goodput's spelling and decides, flag by flag,
// from the table in Flags:
//
//   - Native: goodput bench has the flag, with vLLM's meaning;
//   - Renamed: goodput has the same thing under another name;
//   - Ignored: the flag changes nothing goodput does (it concerns a part of
//     vLLM goodput does not have, and the run measures the same without it);
//     it is dropped with a note;
//   - Refused: goodput cannot do what the flag asks; the run stops before
//     anything is sent, with the reason and what to use instead.
//
// Every problem of one command line (unknown, ambiguous and refused flags)
// is reported at once, each unknown flag with the nearest spelling goodput
// knows. The same table renders the flag table of docs/vllm.md.
package vllmargs
