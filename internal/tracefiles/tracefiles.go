// Package tracefiles finds, for tests, the excerpts of real public traces
// kept beside the repository in ../shared/traces (its README gives their
// sources and licences; the repository itself holds only small copies),
// and writes generated traces of any length for benchmarks, with a way to
// measure the memory their reading takes.
package tracefiles

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Names of the excerpts, relative to Dir.
const (
	MooncakeConversation = "mooncake_conversation_trace_first2000.jsonl"
	MooncakeSynthetic    = "mooncake_synthetic_trace_first2000.jsonl"
	AzureCode            = "azure_llm_2023_code_first5000.csv"
	AzureConv            = "azure_llm_2023_conv_first5000.csv"
	ServeGenLanguage     = "servegen/language/m-large/chunk-0-trace.csv"
	ServeGenReason       = "servegen/reason/deepseek-r1/chunk-0-trace.csv"
	ServeGenMultimodal   = "servegen/multimodal/mm-image/chunk-0-trace.csv"
)

// Dir returns the directory of the excerpts, ../shared/traces from the
// repository root. When it is missing the test fails if the environment
// variable CI is set, and is skipped otherwise.
func Dir(tb testing.TB) string {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "traces")
	if _, err := os.Stat(filepath.Join(dir, MooncakeConversation)); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("the trace excerpts are missing (%v): CI needs ../shared/traces beside the repository", err)
		}
		tb.Skipf("the trace excerpts are not here (%v)", err)
	}
	return dir
}

// Path returns the path of the excerpt name (one of the constants above),
// as Dir finds it.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(Dir(tb), name)
}
