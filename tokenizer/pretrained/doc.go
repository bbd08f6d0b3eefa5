// Package pretrained is the tokenizer of a real model, loaded from the
// model's own files, so that goodput counts tokens exactly as the server
// does: the prompt lengths it sends to a server without /tokenize, and the
// output tokens of a server that reports no usage.
//
// Open reads a Hugging Face tokenizer.json (a file, a directory holding one,
// or a model id already in the local Hugging Face cache) or the vocabulary
// of a GGUF model file (its tokenizer.ggml.* metadata, read by package
// gguf; the tensors are never read). Two algorithms cover the models people
// serve:
//
//   - SentencePiece BPE (Llama 2, Phi-3, Mistral): characters merge by
//     token score with byte fallback, after the leading space that
//     llama.cpp and Hugging Face add to each text;
//   - byte-level BPE (GPT-2, Llama 3, Qwen 2, DeepSeek): text is cut into
//     words by the model's pre-tokenizer pattern, then bytes merge by rank.
//
// Both file formats feed the same code: a vocabulary, added and special
// tokens cut out of the text first, a normalizer, pre-tokenization steps,
// the merge loop, and a decoder. That is why this is one package with the
// loaders in their own files (ggufload.go, hfload.go) rather than one
// package per format: the GGUF and tokenizer.json of one model must give
// the same ids, and they do because they run the same code. The GGUF
// container format itself, useful beyond tokenizers, is package gguf.
//
// It is pure Go. The split patterns that need look-ahead, which Go's regexp
// lacks, are either written out by hand (GPT-2, Llama 3, Qwen 2: also much
// faster) or compiled with the one look-ahead they use, \s+(?!\S),
// emulated. Unigram and WordPiece models (T5, BERT) are not supported and
// fail to load with a clear error.
//
// It reproduces the reference ids exactly: the tests run llama.cpp's
// tokenizer test vectors (ids produced by the Hugging Face tokenizers)
// through both the GGUF and the tokenizer.json of the same models, and
// compare generated text with a running llama-server's /tokenize. Known
// differences, none of which those vectors or ordinary text reach: text
// that is not valid UTF-8 is tokenized byte by byte where the references
// reject or mangle it; Decode returns exact bytes rather than U+FFFD for a
// character cut between tokens, and does not apply transformers'
// clean_up_tokenization_spaces.
//
// The built-in vocabulary of the load generator and the simulator is
// package tokenizer, which this package does not change.
package pretrained
