package capacity

import (
	"encoding/json"
	"math"
)

// planJSON is the wire form of a Plan: stable snake_case keys, kept apart
// from the Go fields so that renaming one cannot change the output. A
// figure the input did not allow is null.
type planJSON struct {
	Input struct {
		PerReplicaQPS          *float64 `json:"per_replica_qps"`
		MaxNumSeqs             *int     `json:"max_num_seqs"`
		LatencySeconds         *float64 `json:"latency_seconds"`
		OutputTokensPerRequest *float64 `json:"output_tokens_per_request"`
		ReplicaTokensPerSecond *float64 `json:"replica_tokens_per_second"`
		PeakQPS                *float64 `json:"peak_qps"`
		Headroom               float64  `json:"headroom"`
		GPUHourCost            *float64 `json:"gpu_hour_cost"`
		Currency               string   `json:"currency,omitempty"`
		Source                 string   `json:"source,omitempty"`
	} `json:"input"`
	PerReplicaQPS          *float64 `json:"per_replica_qps"`
	LittleQPS              *float64 `json:"littles_law_qps"`
	DemandQPS              *float64 `json:"demand_qps"`
	Replicas               *int     `json:"replicas"`
	Utilisation            *float64 `json:"utilisation"`
	TokensPerRequest       *float64 `json:"tokens_per_request"`
	ReplicaTokensPerSecond *float64 `json:"replica_tokens_per_second"`
	FleetTokensPerSecond   *float64 `json:"fleet_tokens_per_second"`
	PeakTokensPerSecond    *float64 `json:"peak_tokens_per_second"`
	GPUsPerReplica         int      `json:"gpus_per_replica"`
	ReplicaHourCost        *float64 `json:"replica_hour_cost"`
	FleetHourCost          *float64 `json:"fleet_hour_cost"`
	CostPerMillion         *float64 `json:"cost_per_million_tokens"`
	PeakCostPerMillion     *float64 `json:"peak_cost_per_million_tokens"`
	Summary                string   `json:"summary"`
}

// figure is v, or nil (null) when v is not a finite number.
func figure(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// given is v, or nil when it is zero: the Input's "not given".
func given(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return figure(v)
}

// MarshalJSON writes the plan for scripts: every figure with its input,
// undefined figures as null, and the one-paragraph Summary.
func (p Plan) MarshalJSON() ([]byte, error) {
	var j planJSON
	in := p.Input
	j.Input.PerReplicaQPS = given(in.PerReplicaQPS)
	if in.MaxNumSeqs != 0 {
		j.Input.MaxNumSeqs = &in.MaxNumSeqs
	}
	j.Input.LatencySeconds = given(in.Latency.Seconds())
	j.Input.OutputTokensPerRequest = given(in.OutputTokensPerRequest)
	j.Input.ReplicaTokensPerSecond = given(in.ReplicaTokensPerSecond)
	j.Input.PeakQPS = given(in.PeakQPS)
	j.Input.Headroom = in.Headroom
	j.Input.GPUHourCost = given(in.GPUHourCost)
	j.Input.Currency, j.Input.Source = in.Currency, in.Source
	j.PerReplicaQPS = figure(p.PerReplicaQPS)
	j.LittleQPS = figure(p.LittleQPS)
	j.DemandQPS = figure(p.DemandQPS)
	if p.Replicas > 0 {
		j.Replicas = &p.Replicas
	}
	j.Utilisation = figure(p.Utilisation)
	j.TokensPerRequest = figure(p.TokensPerRequest)
	j.ReplicaTokensPerSecond = figure(p.ReplicaTokensPerSecond)
	j.FleetTokensPerSecond = figure(p.FleetTokensPerSecond)
	j.PeakTokensPerSecond = figure(p.PeakTokensPerSecond)
	j.GPUsPerReplica = p.GPUsPerReplica
	j.ReplicaHourCost = figure(p.ReplicaHourCost)
	j.FleetHourCost = figure(p.FleetHourCost)
	j.CostPerMillion = figure(p.CostPerMillion)
	j.PeakCostPerMillion = figure(p.PeakCostPerMillion)
	j.Summary = p.Summary()
	return json.Marshal(j)
}
