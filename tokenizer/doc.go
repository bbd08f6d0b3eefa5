// Package tokenizer is goodput's built-in tokenizer: a fixed, deterministic
// vocabulary of VocabSize ids shared by the load generator and the built-in
// simulator, so that both sides count the same number of tokens in the same
// text.
//
// It is not the tokenizer of any real model. Its token counts for English
// prose are of the same order as a modern BPE vocabulary (a common word is
// one token, a rare word a few), but they will differ from any particular
// server's counts; calibrate against the server's own tokenizer when exact
// input lengths matter.
//
// The vocabulary has three kinds of piece:
//
//   - ids 0–255 are byte fallbacks: id b is the single byte b, so any byte
//     string, including invalid UTF-8, can be encoded and decoded losslessly;
//   - continuation pieces are runs of ASCII letters with no leading space
//     ("ing", "tion"): they cover letters that do not follow a space;
//   - word pieces are a space followed by ASCII letters (" the", " serv",
//     " The"): most tokens of ordinary text are word pieces.
//
// Encode cuts text greedily: a space followed by letters takes the longest
// word piece that matches, letters elsewhere take the longest continuation
// piece, and every other byte is its own byte-fallback token. Decode is the
// exact inverse of Encode for every input.
//
// Word pieces and the byte fallbacks of non-letters are composable: any
// sequence of them decodes to text that encodes back to the very same ids
// (see Composable). The simulator and the workload generators emit only
// composable ids, which is what makes Count(Decode(ids)) == len(ids) hold for
// the text that crosses the wire.
package tokenizer
