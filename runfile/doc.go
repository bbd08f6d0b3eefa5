// Package runfile opens the files a run's requests can come from and reads
// them as records: goodput's own record files, the seeds' request log, and
// the per-request results of other benchmark tools (vllm bench serve,
// AIPerf, GuideLLM, genai-bench, inference-perf, GenAI-Perf).
//
// Open tells the format from the content, not the file name, and converts
// another tool's requests to record.Record on the way in, so that every
// analysis treats them alike. Each importer checks what it reads: a request
// whose numbers are impossible is refused with its file and place, and
// what an importer had to assume (token times spread evenly, a sample of
// the requests) is said in File.Notes.
package runfile
