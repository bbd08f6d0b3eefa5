package tokenizer_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/goodput-dev/goodput/tokenizer"
)

func ExampleEncode() {
	ids := tokenizer.Encode(" The cache is warm.")
	fmt.Println(len(ids), tokenizer.Count(" The cache is warm."))
	fmt.Printf("%q\n", tokenizer.Decode(ids))
	// Output:
	// 5 5
	// " The cache is warm."
}

func ExampleAppendText() {
	// A simulator streams one token at a time; the concatenation is the
	// decoded text.
	var out []byte
	for _, id := range tokenizer.Encode(" the queue, the batch") {
		out = tokenizer.AppendText(out, id)
	}
	fmt.Printf("%q\n", out)
	// Output:
	// " the queue, the batch"
}

func ExampleWords() {
	ids := tokenizer.Words(12, rand.New(rand.NewPCG(1, 2)))
	text := tokenizer.Decode(ids)
	fmt.Println(len(ids), tokenizer.Count(text))
	// Output:
	// 12 12
}
