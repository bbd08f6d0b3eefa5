package sweep

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sameSample(a, b Sample) bool {
	if a.Requests != b.Requests {
		return false
	}
	for _, f := range fields {
		if !near(*f.ptr(&a), *f.ptr(&b), 0) {
			return false
		}
	}
	return true
}

func TestJSONRoundTrip(t *testing.T) {
	ps := server(t, serverLoads())
	// A point with repeats, one with an undefined TPOT, and a rate sweep's
	// unbounded load all survive the trip.
	ps[2], _ = Merge(ps[2], Point{Load: ps[2].Load, Mean: synth(2.2, 2.1, 0.96)})
	ps[3].Repeats[0].TPOT = Dist{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	ps[3], _ = NewPoint(ps[3].Load, ps[3].Repeats...)
	s, err := Analyze(ps, Options{Latency: StatE2EP50, Target: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"tpot_p99": null`) || !strings.Contains(b.String(), `"load": "concurrency=24"`) {
		t.Errorf("file lacks a null TPOT or a text load:\n%s", b.String()[:400])
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Verdict != s.Verdict || back.Options != s.Options {
		t.Errorf("verdict or options changed:\n%s\n%s", back.Verdict, s.Verdict)
	}
	if back.Operating.Load != s.Operating.Load || back.Power.Load != s.Power.Load ||
		back.Curvature.Load != s.Curvature.Load || back.GoodputPeak.Load != s.GoodputPeak.Load {
		t.Errorf("picks changed: %+v vs %+v", back.Operating, s.Operating)
	}
	if len(back.Points) != len(s.Points) {
		t.Fatalf("%d points back, want %d", len(back.Points), len(s.Points))
	}
	for i := range s.Points {
		a, b := s.Points[i], back.Points[i]
		if a.Load != b.Load || !sameSample(a.Mean, b.Mean) || !sameSample(a.Spread, b.Spread) || len(a.Repeats) != len(b.Repeats) {
			t.Errorf("point %d changed: %+v\nvs %+v", i, a, b)
		}
	}

	// The file's keys are the documented snake_case ones.
	var raw map[string]any
	var b2 bytes.Buffer
	_ = WriteJSON(&b2, s)
	if err := json.Unmarshal(b2.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "options", "verdict", "power_knee", "curvature_knee", "goodput_peak", "operating_point", "points"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	op := raw["operating_point"].(map[string]any)
	if op["load"] != "concurrency=24" || op["first_failure"] != "concurrency=32" || op["target"] != 0.95 {
		t.Errorf("operating_point = %v", op)
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"empty", ``, "sweep file: EOF"},
		{"syntax", `{"schema":1,`, "sweep file"},
		{"bad token", `{"schema":1,]`, "sweep file: byte 13"},
		{"no schema", `{"points":[]}`, "schema 0"},
		{"future schema", `{"schema":2}`, "schema 2: this version reads 1 to 1"},
		{"no points", `{"schema":1,"points":[]}`, "no points"},
		{"bad load", `{"schema":1,"points":[{"load":"concurrency=0","repeats":[{}]}]}`, "concurrency"},
		{"load not text", `{"schema":1,"points":[{"load":16}]}`, "sweep file"},
		{"bad number", `{"schema":1,"points":[{"load":"c=1","repeats":[{"goodput":"fast"}]}]}`, "goodput"},
		{"negative requests", `{"schema":1,"points":[{"load":"c=1","repeats":[{"requests":-3}]}]}`, "requests -3"},
		{"duplicate load", `{"schema":1,"points":[{"load":"c=1","repeats":[{}]},{"load":"concurrency=1","repeats":[{}]}]}`, "repeats point 1"},
		{"bad option", `{"schema":1,"options":{"latency":"goodput"},"points":[{"load":"c=1","repeats":[{}]}]}`, "not a latency"},
		// a key twice in a repeat: the last would have won without a word
		{"duplicate key", `{"schema":1,"points":[{"load":"c=1","repeats":[{"goodput":1,"goodput":2}]}]}`,
			`sweep file: key "goodput" in points[0].repeats[0] appears twice`},
	}
	for _, tt := range tests {
		if _, err := ReadJSON(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: ReadJSON error = %v, want one containing %q", tt.name, err, tt.err)
		}
	}
}

// A point written with only a mean (by another tool, say) reads as one
// repeat, and unknown keys are ignored.
func TestReadJSONMeanOnly(t *testing.T) {
	in := `{"schema":1,"future_key":true,"points":[{"load":"request_rate=2","mean":{"requests":50,"output_throughput":180.5,"attainment":0.93,"new_stat":1}}]}`
	s, err := ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Points[0]
	if p.Load != Rate(2) || len(p.Repeats) != 1 || p.Mean.OutputThroughput != 180.5 || p.Mean.Requests != 50 ||
		!math.IsNaN(p.Mean.E2E.Mean) || !s.Operating.Found {
		t.Errorf("read %+v", p)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	s, _ := Analyze(server(t, serverLoads()), Options{})
	path := filepath.Join(dir, "sweep.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(f, s); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadFile(path)
	if err != nil || len(back.Points) != 9 {
		t.Fatalf("ReadFile = %d points, %v", len(back.Points), err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path+": sweep file") {
		t.Errorf("ReadFile of a broken file: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

// FuzzReadJSON checks that any input is either read into a consistent
// Summary or rejected with an error; never a panic.
func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	s, _ := Analyze([]Point{
		{Load: Concurrency(1), Mean: synth(1, 1, 1)},
		{Load: Concurrency(2), Mean: synth(2, 1.1, 0.5)},
		{Load: Rate(math.Inf(1)), Mean: synth(2.1, 5, 0)},
	}, Options{})
	_ = WriteJSON(&b, s)
	f.Add(b.String())
	f.Add(`{"schema":1,"points":[{"load":"c=1","mean":{}}]}`)
	f.Add(`{"schema":1,"points":[{"load":"rate=inf","repeats":[{"e2e_mean":null},{"e2e_mean":1e308}]}]}`)
	f.Add(`{"schema":1,"options":{"target":-1},"points":[]}`)
	f.Add(`[]`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(s.Points) == 0 {
			t.Fatal("a Summary with no points was accepted")
		}
		for i, p := range s.Points {
			if err := p.Load.Validate(); err != nil {
				t.Fatalf("point %d: %v", i, err)
			}
			for j, r := range p.Repeats {
				if err := r.Check(); err != nil {
					t.Fatalf("point %d, repeat %d accepted outside its domain: %v", i, j, err)
				}
			}
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, s); err != nil {
			t.Fatalf("WriteJSON of what ReadJSON accepted: %v", err)
		}
	})
}

// Every figure of a sweep file is checked against its domain as it is
// read: a negative throughput or latency, an attainment or error rate
// above 100 %, names the point, which of its samples, and the key.
func TestReadJSONRefusesFiguresOutsideTheirDomain(t *testing.T) {
	point := func(sample string) string {
		return `{"schema":1,"points":[{"load":"c=1","repeats":[{"requests":10,"attainment":0.5}]},{"load":"c=2","repeats":[` + sample + `]}]}`
	}
	tests := []struct {
		name, in, err string
	}{
		// 200 % of requests met the SLO
		{"attainment", point(`{"requests":10,"attainment":2}`), `point 2: repeat 1: "attainment" 2: must be from 0 to 1`},
		{"negative attainment", point(`{"attainment":-0.1}`), `point 2: repeat 1: "attainment" -0.1: must be from 0 to 1`},
		{"error rate", point(`{"error_rate":1.5}`), `"error_rate" 1.5: must be from 0 to 1`},
		// negative rates and latencies
		{"throughput", point(`{"request_throughput":-5}`), `point 2: repeat 1: "request_throughput" -5: must be ≥ 0`},
		{"goodput", point(`{"goodput":-1}`), `"goodput" -1: must be ≥ 0`},
		{"latency", point(`{"e2e_mean":-0.3}`), `"e2e_mean" -0.3: must be ≥ 0`},
		{"little", point(`{"little_l":-2}`), `"little_l" -2: must be ≥ 0`},
		// figures no run can have: a server does not deliver 1e308 tok/s
		{"huge output throughput", point(`{"output_throughput":1e308}`), `point 2: repeat 1: "output_throughput" 1e+308: above 1e9 tok/s, more than any run measures`},
		{"huge goodput", point(`{"goodput":2e9}`), `point 2: repeat 1: "goodput" 2e+09: above 1e9 tok/s, more than any run measures`},
		{"huge request throughput", point(`{"request_throughput":1.5e7}`), `point 2: repeat 1: "request_throughput" 1.5e+07: above 1e7 req/s, more than any run measures`},
		{"huge request goodput", point(`{"request_goodput":1e300}`), `"request_goodput" 1e+300: above 1e7 req/s, more than any run measures`},
		{"huge latency", point(`{"e2e_mean":1e308}`), `point 2: repeat 1: "e2e_mean" 1e+308: above 1e7 s, more than any run measures`},
		{"huge mean", `{"schema":1,"points":[{"load":"c=3","mean":{"output_throughput":1e308},"repeats":[{"output_throughput":100}]}]}`, `point 1: mean: "output_throughput" 1e+308: above 1e9 tok/s`},
		{"huge spread", `{"schema":1,"points":[{"load":"c=3","spread":{"request_throughput":1e308},"repeats":[{}]}]}`, `point 1: spread: "request_throughput" 1e+308: above 1e7 req/s`},
		// a mean-only point is its one repeat, checked the same way
		{"mean only", `{"schema":1,"points":[{"load":"c=3","mean":{"ttft_p99":-1}}]}`, `point 1: mean: "ttft_p99" -1: must be ≥ 0`},
		// the spread, too, cannot be negative
		{"spread", `{"schema":1,"points":[{"load":"c=3","spread":{"ttft_p99":-1},"repeats":[{}]}]}`, `point 1: spread: "ttft_p99" -1: must be ≥ 0`},
		// a p99 below its median, of one repeat or of the mean
		{"percentiles", point(`{"ttft_p50":5,"ttft_p99":1}`), `point 2: repeat 1: "ttft_p50" 5 is above "ttft_p99" 1: percentiles out of order`},
		{"mean percentiles", `{"schema":1,"points":[{"load":"c=3","mean":{"e2e_p90":2,"e2e_p99":1.5}}]}`, `point 1: mean: "e2e_p90" 2 is above "e2e_p99" 1.5`},
		// the options' target
		{"target", `{"schema":1,"options":{"target":2},"points":[{"load":"c=1","repeats":[{}]}]}`, "attainment target 2: must be in (0, 1]"},
	}
	for _, tt := range tests {
		if _, err := ReadJSON(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: ReadJSON error = %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	// Undefined figures (null) and the extremes of each domain read.
	in := point(`{"requests":0,"attainment":1,"error_rate":0,"e2e_mean":null,"goodput":0,"ttft_p50":1,"ttft_p90":null,"ttft_p99":1,` +
		`"output_throughput":1e9,"request_throughput":1e7,"request_goodput":1e7,"window":1e7}`)
	if _, err := ReadJSON(strings.NewReader(in)); err != nil {
		t.Errorf("figures at the edges of their domains: %v", err)
	}
}

// A figure that is not finite is refused by name, whatever its domain;
// JSON cannot hold one, but a Sample built in Go can.
func TestCheckRefusesInfinity(t *testing.T) {
	tests := []struct {
		name string
		s    Sample
		want string
	}{
		{"throughput", Sample{OutputThroughput: math.Inf(1)}, `"output_throughput" +Inf: must be a finite number`},
		{"Little's L", Sample{LittleL: math.Inf(1)}, `"little_l" +Inf: must be a finite number`},
		{"negative latency", Sample{TTFT: Dist{P99: math.Inf(-1)}}, `"ttft_p99" -Inf: must be a finite number`},
	}
	for _, tt := range tests {
		if err := tt.s.Check(); err == nil || err.Error() != tt.want {
			t.Errorf("%s: Check() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
