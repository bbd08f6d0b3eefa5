package arrival_test

import (
	"fmt"
	"time"

	"github.com/goodput-dev/goodput/arrival"
)

func ExampleConfig_Plan() {
	c := arrival.DefaultConfig()
	c.RequestRate = 4      // --request-rate 4
	c.Arrival = "constant" // --arrival constant
	c.NumPrompts = 5       // --num-prompts 5
	p, err := c.Plan()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Open.Offsets)
	fmt.Print(p)
	// Output:
	// [0s 250ms 500ms 750ms 1s]
	// open loop: constant arrivals at 4 req/s, seed 0
	// stops after 5 requests
	// schedule: 5 requests from 0s to 1s, mean 4 req/s; gaps p50 250ms p90 250ms p99 250ms max 250ms; busiest second 4 requests
}

func ExampleConfig_Validate() {
	c := arrival.DefaultConfig()
	c.RequestRate, c.Burstiness, c.Duration = 10, 0, 30*time.Second
	fmt.Println(c.Validate())
	// Output:
	// --burstiness must be a positive finite number, got 0
}
