// Package canned is a streaming server for benchmarks and tests of the
// load generator: it answers OpenAI-style completion requests with a
// canned token stream whose times it controls and reports, so that a
// benchmark measures the client, not the server.
//
// Each response's tokens are due on absolute deadlines counted from the
// request's arrival (the kernel's receive time of its last bytes, where
// the system gives one): the first after TTFT, each next one ITL later,
// or all at once when ITL is 0. One goroutine writes every stream: it
// sleeps until the earliest deadline and then writes every token due,
// each with one non-blocking write, so the server's cost is a write per
// token and nothing while no token is due (no timer per stream, no
// ticker); a response's status line and header go out with its first
// token. It notes when each write returned. Compare a client's
// timestamps with those: the difference is the client's own error. It
// reads requests itself, one read and a scan of the head each (the method,
// path, Content-Length and key header; a chunked body gets a 400), so
// that a burst of requests costs it little of the CPU a client on the
// same machine needs.
//
// Run it in the benchmark's process (Start) or, so that its CPU time and
// scheduler are not the client's, in a child process (StartChild, with
// the test binary's TestMain calling ServeChild).
package canned
