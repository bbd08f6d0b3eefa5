package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		spec    string
		want    Faults
		wantErr string
	}{
		{spec: "error-rate=0.05", want: Faults{ErrorRate: 0.05}},
		{spec: "error-rate=0", want: Faults{}},
		{spec: "error-rate=1", want: Faults{ErrorRate: 1}},
		{spec: " overload=64 ", want: Faults{Overload: 64}},
		{spec: "overload-status=503", want: Faults{OverloadStatus: 503}},
		{spec: "disconnect-rate=0.01", want: Faults{DisconnectRate: 0.01}},
		{spec: "malformed-rate=0.5", want: Faults{MalformedRate: 0.5}},
		{spec: "stall=2s@0.01", want: Faults{Stall: 2 * time.Second, StallRate: 0.01}},
		{spec: "slow-first-byte=500ms", want: Faults{SlowFirstByte: 500 * time.Millisecond, SlowFirstByteRate: 1}},
		{spec: "slow-first-byte=1s@0.25", want: Faults{SlowFirstByte: time.Second, SlowFirstByteRate: 0.25}},
		{spec: "error-rate=1.5", wantErr: "rate 1.5: must be in [0, 1]"},
		{spec: "error-rate=-0.1", wantErr: "rate -0.1: must be in [0, 1]"},
		{spec: "error-rate=NaN", wantErr: "must be in [0, 1]"},
		{spec: "error-rate=lots", wantErr: `rate "lots"`},
		{spec: "overload=0", wantErr: "queue bound 0: must be at least 1"},
		{spec: "overload=-5", wantErr: "queue bound -5"},
		{spec: "overload=99999999999999999999", wantErr: "value out of range"},
		{spec: "overload-status=500", wantErr: "status 500: must be 429 or 503"},
		{spec: "stall=2s", wantErr: "want DURATION@RATE"},
		{spec: "stall=2x@0.1", wantErr: `duration "2x"`},
		{spec: "stall=-1s@0.1", wantErr: "duration -1s: must not be negative"},
		{spec: "stall=1s@2", wantErr: "rate 2: must be in [0, 1]"},
		{spec: "slow-first-byte=@0.5", wantErr: `duration ""`},
		{spec: "latency=5ms", wantErr: `unknown key "latency"`},
		{spec: "error-rate", wantErr: "want key=value"},
		{spec: "=0.5", wantErr: "want key=value"},
		{spec: "", wantErr: "want key=value"},
	}
	for _, tt := range tests {
		var f Faults
		err := f.ParseFault(tt.spec)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "fault ") {
				t.Errorf("ParseFault(%q) = %v, want an error naming the fault and containing %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || f != tt.want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", tt.spec, f, err, tt.want)
		}
	}
}

func TestParseFaultAccumulatesAndPrints(t *testing.T) {
	var f Faults
	for _, spec := range []string{"error-rate=0.1", "overload=8", "overload-status=503", "stall=2s@0.01", "slow-first-byte=500ms"} {
		if err := f.ParseFault(spec); err != nil {
			t.Fatal(err)
		}
	}
	want := "error-rate=0.1 overload=8 overload-status=503 stall=2s@0.01 slow-first-byte=500ms@1"
	if got := f.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Faults{}).String(); got != "none" {
		t.Errorf("zero Faults print %q, want none", got)
	}
}

func faultServer(t *testing.T, specs ...string) (string, *http.Client) {
	t.Helper()
	var f Faults
	for _, s := range specs {
		if err := f.ParseFault(s); err != nil {
			t.Fatal(err)
		}
	}
	_, ts := startServer(t, Options{Profile: fastProfile(t), Faults: f, Seed: 3})
	return ts.URL, ts.Client()
}

const streamBody = `{"prompt":"hello","max_tokens":20,"ignore_eos":true,"stream":true}`

func TestFaultErrorRate(t *testing.T) {
	url, c := faultServer(t, "error-rate=1")
	res, err := postStream(context.Background(), c, url+"/v1/completions", streamBody)
	if err != nil {
		t.Fatal(err)
	}
	var e errorBody
	if err := json.Unmarshal(res.body, &e); err != nil || res.status != 500 || e.Error.Type != "InternalServerError" {
		t.Errorf("status %d body %s; want a 500 error object", res.status, res.body)
	}
}

func TestFaultErrorRateIsSeeded(t *testing.T) {
	// Half the requests fail; which ones depends only on the seed and the
	// arrival order, so two servers with the same seed agree.
	pattern := func() string {
		url, _ := faultServer(t, "error-rate=0.5")
		var b strings.Builder
		for range 40 {
			if postJSON(t, url+"/v1/completions", `{"prompt":"a","max_tokens":1}`, nil) == 500 {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	a, b := pattern(), pattern()
	if a != b {
		t.Errorf("same seed, different failures:\n%s\n%s", a, b)
	}
	if n := strings.Count(a, "x"); n < 8 || n > 32 {
		t.Errorf("%d of 40 failed at rate 0.5: %s", n, a)
	}
}

func TestFaultOverload(t *testing.T) {
	for _, tt := range []struct {
		specs      []string
		wantStatus int
	}{
		{[]string{"overload=2"}, 429},
		{[]string{"overload=2", "overload-status=503"}, 503},
	} {
		var f Faults
		for _, spec := range tt.specs {
			if err := f.ParseFault(spec); err != nil {
				t.Fatal(err)
			}
		}
		// One sequence runs at a time, so later requests queue. With a
		// bound of 2, the first runs, the next two wait, the fourth is
		// refused.
		s, ts := startServer(t, Options{Profile: fastProfile(t), Faults: f, MaxNumSeqs: 1})
		ctx, cancel := context.WithCancel(context.Background())
		var statuses []int
		for i := range 4 {
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions",
				strings.NewReader(`{"prompt":"a","max_tokens":30000,"ignore_eos":true,"stream":true}`))
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			statuses = append(statuses, resp.StatusCode)
			if resp.StatusCode != 200 {
				body, _ := io.ReadAll(resp.Body)
				if !strings.Contains(string(body), "2 requests already waiting, the bound is 2") {
					t.Errorf("%v: refusal says %s", tt.specs, body)
				}
			}
			defer resp.Body.Close()
			if i == 0 {
				// Let the first one start running before the others queue.
				for deadline := time.Now().Add(10 * time.Second); s.queued() > 0 && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
		}
		cancel()
		if want := []int{200, 200, 200, tt.wantStatus}; !slices.Equal(statuses, want) {
			t.Errorf("%v: statuses %v, want %v", tt.specs, statuses, want)
		}
	}
}

func TestFaultDisconnect(t *testing.T) {
	url, c := faultServer(t, "disconnect-rate=1")
	res, err := postStream(context.Background(), c, url+"/v1/completions", streamBody)
	if err != nil {
		t.Fatal(err)
	}
	// The connection drops mid-stream: no [DONE], and the reader sees the
	// chunked body end early rather than a clean EOF.
	if res.status != 200 || res.done() || !errors.Is(res.readErr, io.ErrUnexpectedEOF) {
		t.Errorf("status %d, %d events, [DONE] %v, read error %v; want a cut stream", res.status, len(res.events), res.done(), res.readErr)
	}
	if len(res.events) >= 20 {
		t.Errorf("%d events before the drop, want fewer than the 20 tokens", len(res.events))
	}
	// Non-streaming: the connection drops before any response.
	resp, err := c.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a","max_tokens":3}`))
	if err == nil {
		resp.Body.Close()
		t.Errorf("non-streaming request got status %d, want a dropped connection", resp.StatusCode)
	}
}

func TestFaultMalformedChunk(t *testing.T) {
	url, c := faultServer(t, "malformed-rate=1")
	res, err := postStream(context.Background(), c, url+"/v1/completions", streamBody)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, e := range res.events {
		var v map[string]any
		if string(e.data) != "[DONE]" && json.Unmarshal(e.data, &v) != nil {
			bad++
		}
	}
	// Exactly one chunk is broken; the stream still ends normally.
	if bad != 1 || !res.done() || len(res.events) != 21 {
		t.Errorf("%d malformed of %d events, [DONE] %v; want 1 of 21 and [DONE]", bad, len(res.events), res.done())
	}
}

func TestFaultStall(t *testing.T) {
	url, c := faultServer(t, "stall=300ms@1")
	res, err := postStream(context.Background(), c, url+"/v1/completions", streamBody)
	if err != nil {
		t.Fatal(err)
	}
	var longest time.Duration
	for i := 1; i < len(res.events); i++ {
		longest = max(longest, res.events[i].at.Sub(res.events[i-1].at))
	}
	// Other gaps are well under a millisecond; the margin absorbs timer and
	// scheduling noise on a busy machine.
	if longest < 250*time.Millisecond || !res.done() {
		t.Errorf("longest gap between events %v, [DONE] %v; want about 300ms and a complete stream", longest, res.done())
	}
}

func TestFaultSlowFirstByte(t *testing.T) {
	url, c := faultServer(t, "slow-first-byte=300ms")
	res, err := postStream(context.Background(), c, url+"/v1/completions", streamBody)
	if err != nil {
		t.Fatal(err)
	}
	if first := res.events[0].at.Sub(res.start); first < 300*time.Millisecond || !res.done() {
		t.Errorf("first event after %v, want ≥ 300ms", first)
	}
}

func TestFaultsDoNotTouchOtherEndpoints(t *testing.T) {
	url, _ := faultServer(t, "error-rate=1", "disconnect-rate=1")
	var models map[string]any
	if code := getJSON(t, url+"/v1/models", &models); code != 200 {
		t.Errorf("/v1/models status %d under faults", code)
	}
}
