package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/goodput-dev/goodput/record"
)

var metricsURL = regexp.MustCompile(`serving client metrics at (http://127\.0\.0\.1:\d+/metrics)`)

func scrapeFamilies(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

func counterSum(fams map[string]*dto.MetricFamily, name string) float64 {
	total := 0.0
	for _, m := range fams[name].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	return total
}

// TestBenchMetricsListen runs bench against the built-in simulator with
// --metrics-listen, scrapes it while the run goes and, during
// --metrics-linger, after it: the final counters equal the record file.
func TestBenchMetricsListen(t *testing.T) {
	dir := t.TempDir()
	out, errOut := &simOutput{}, &simOutput{}
	env := &Env{Stdout: out, Stderr: errOut, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs([]string{"bench", "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "30s", "--request-rate", "25",
		"--num-prompts", "50", "--random-input-len", "64", "--random-output-len", "16", "--ignore-eos", "--warmup-first", "3",
		"--goodput", "ttft:300", "--result-dir", dir, "--run-name", "live", "--quiet", "--no-server-metrics"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()

	var url string
	deadline := time.Now().Add(20 * time.Second)
	for url == "" {
		if m := metricsURL.FindStringSubmatch(errOut.String()); m != nil {
			url = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics URL printed:\n%s", errOut)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// During the run: scrapes succeed and the request count rises.
	var during []float64
	for !strings.Contains(out.String(), "Wrote ") {
		fams, err := scrapeFamilies(url)
		if err != nil {
			t.Fatalf("scrape during the run: %v", err)
		}
		during = append(during, counterSum(fams, "goodput_requests_total"))
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end:\n%s\n%s", out, errOut)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rising := false
	for i := 1; i < len(during); i++ {
		if during[i] < during[i-1] {
			t.Fatalf("the request counter fell: %v", during)
		}
		rising = rising || during[i] > during[i-1]
	}
	if len(during) < 3 || !rising {
		t.Errorf("scrapes during the run saw %v; want at least 3, rising", during)
	}
	// The run has ended; the server lingers for a last scrape.
	fams, err := scrapeFamilies(url)
	if err != nil {
		t.Fatalf("scrape after the run: %v", err)
	}
	cancel() // cut the linger short
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("bench: %v\n%s", err, errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bench still lingering 10 s after cancel")
	}

	f, err := os.Open(dir + "/live.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, "live.jsonl")
	if _, err := d.Header(); err != nil {
		t.Fatal(err)
	}
	var measured, warm, ok, tokens float64
	for {
		var r record.Record
		if err := d.Next(&r); err != nil {
			break
		}
		switch {
		case r.Warmup:
			warm++
		case r.OK():
			measured++
			ok++
			tokens += float64(r.OutputTokens)
		default:
			measured++
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"goodput_requests_total", counterSum(fams, "goodput_requests_total"), measured},
		{"goodput_warmup_requests_total", counterSum(fams, "goodput_warmup_requests_total"), warm},
		{"goodput_output_tokens_total", counterSum(fams, "goodput_output_tokens_total"), tokens},
		{"goodput_time_to_first_token_seconds count", float64(fams["goodput_time_to_first_token_seconds"].GetMetric()[0].GetHistogram().GetSampleCount()), ok},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, the records say %v", c.name, c.got, c.want)
		}
	}
	if measured != 47 || warm != 3 {
		t.Errorf("records: %v measured, %v warm-up; want 47 and 3", measured, warm)
	}
	if labels := fams["goodput_requests_total"].GetMetric()[0].GetLabel(); !strings.Contains(fmt.Sprint(labels), `value:"live"`) {
		t.Errorf("the series are not labelled with the run: %v", labels)
	}
}
