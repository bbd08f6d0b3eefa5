// Package gguf reads and writes the metadata of GGUF files, the model format
// of llama.cpp: the header and every key/value pair, arrays included. It
// stops before the tensor descriptions and never reads tensor data, so
// reading the vocabulary of a multi-gigabyte model costs only its metadata.
//
// Reading is bounded against hostile files: every length and count is
// checked against the bytes that remain (when the size is known) and against
// fixed limits, arrays are never allocated ahead of the bytes that fill
// them, and nested arrays have a depth limit. A malformed file is an error
// naming the key and byte offset, never a panic or an oversized allocation.
//
// Write produces metadata-only files (no tensors), the shape of llama.cpp's
// vocabulary-only test files; tests use it to build small vocabularies.
package gguf
