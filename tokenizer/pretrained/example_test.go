package pretrained_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
	"github.com/goodput-dev/goodput/tokenizer/pretrained"
)

// A GGUF file carries its model's vocabulary. Open reads one from a path
// (or a tokenizer.json, or a directory holding one); this example builds a
// tiny byte-level vocabulary in memory with package gguf instead.
func Example() {
	f := &gguf.File{}
	f.Add("general.name", gguf.Scalar("tiny"))
	f.Add("tokenizer.ggml.model", gguf.Scalar("gpt2")) // byte-level BPE
	f.Add("tokenizer.ggml.pre", gguf.Scalar("gpt-2"))
	f.Add("tokenizer.ggml.tokens", gguf.ArrayOf([]string{"h", "i", "Ġ", "hi", "Ġhi", "<|eot|>"}))
	f.Add("tokenizer.ggml.token_type", gguf.ArrayOf([]int32{1, 1, 1, 1, 1, 3}))
	f.Add("tokenizer.ggml.merges", gguf.ArrayOf([]string{"h i", "Ġ hi"}))
	f.Add("tokenizer.ggml.bos_token_id", gguf.Scalar(uint32(5)))
	var file bytes.Buffer
	if err := gguf.Write(&file, f); err != nil {
		log.Fatal(err)
	}

	tok, err := pretrained.ReadGGUF(&file, "tiny")
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("hi hi<|eot|>")
	fmt.Println(tok.Name(), tok.VocabSize(), ids, tok.Count("hi hi"))
	fmt.Printf("%q\n", tok.Decode(ids))
	fmt.Println(tok.WithBOS(true).Encode("hi"))
	// Output:
	// tiny 6 [3 4 5] 2
	// "hi hi<|eot|>"
	// [5 3]
}
