package workload_test

import (
	"fmt"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

func ExampleNew() {
	c := workload.DefaultConfig() // --dataset-name random
	c.Random.InputLen = 64        // --random-input-len 64
	c.Random.OutputLen = 16       // --random-output-len 16
	c.Random.PrefixLen = 8        // --random-prefix-len 8
	src, err := workload.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	it := src.Item(0)
	fmt.Println(src)
	fmt.Println(it.InputTokens, len(it.PromptTokenIDs), tokenizer.Count(it.Prompt), it.OutputTokens)
	// Output:
	// random: input 64 tokens after a shared prefix of 8, output 16 tokens, seed 0
	// 72 72 72 16
}

func ExampleNew_custom() {
	c := workload.DefaultConfig()
	c.Dataset, c.Path = workload.DatasetCustom, "testdata/custom_bad.jsonl"
	_, err := workload.New(c)
	fmt.Println(err)
	// Output:
	// testdata/custom_bad.jsonl:3: unexpected end of JSON input
}
