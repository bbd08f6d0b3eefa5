package transport

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// New and Check say which transport carries requests to a URL, and why
// the event loop cannot where it cannot.
func TestChoosingTheTransport(t *testing.T) {
	linux := runtime.GOOS == "linux"
	tests := []struct {
		kind Kind
		url  string
		want Kind   // the transport New makes; "" when it fails
		err  string // in its error
	}{
		{Auto, "http://127.0.0.1:8000", map[bool]Kind{true: EventLoop, false: NetHTTP}[linux], ""},
		{Auto, "https://api.example.com", NetHTTP, ""}, // TLS: net/http
		{NetHTTP, "http://127.0.0.1:8000", NetHTTP, ""},
		{EventLoop, "https://api.example.com", "", "--transport eventloop: "},
	}
	if linux {
		tests = append(tests, struct {
			kind Kind
			url  string
			want Kind
			err  string
		}{EventLoop, "https://api.example.com", "", "https:// needs TLS, which only net/http speaks"})
	}
	for _, tt := range tests {
		tr, err := New(tt.url, Options{Kind: tt.kind})
		cerr := Check(tt.kind, tt.url)
		switch {
		case tt.want == "" && (err == nil || !strings.Contains(err.Error(), tt.err) || cerr == nil || cerr.Error() != err.Error()):
			t.Errorf("%s for %s: %v, check %v; want an error saying %q", tt.kind, tt.url, err, cerr, tt.err)
		case tt.want != "" && (err != nil || tr.Stats().Kind != tt.want || cerr != nil):
			t.Errorf("%s for %s: %v, check %v; want %s", tt.kind, tt.url, err, cerr, tt.want)
		}
		if tr != nil {
			tr.Close()
		}
	}
	if _, err := ParseKind("epoll"); err == nil || !strings.Contains(err.Error(), "want auto, eventloop or net/http") {
		t.Errorf("ParseKind(epoll): %v", err)
	}
	if k, err := ParseKind(""); k != Auto || err != nil {
		t.Errorf(`ParseKind(""): %v %v`, k, err)
	}
}

// Delays counts durations in buckets of 12.5 %: its quantiles overstate
// by no more, never pass the maximum, and merge.
func TestDelays(t *testing.T) {
	var d Delays
	if d.Quantile(0.99) != 0 || d.Count() != 0 {
		t.Fatal("an empty histogram has no quantile")
	}
	for i := 1; i <= 1000; i++ {
		d.Add(time.Duration(i) * time.Microsecond)
	}
	d.Add(-5) // counts as zero
	for _, q := range []float64{0.5, 0.9, 0.99} {
		exact := time.Duration(1000*q) * time.Microsecond
		if got := d.Quantile(q); got < exact*95/100 || got > exact*1125/1000 {
			t.Errorf("q%.2f = %v, exact about %v", q, got, exact)
		}
	}
	if d.Max() != time.Millisecond || d.Quantile(1) != d.Max() || d.Count() != 1001 {
		t.Errorf("max %v, q1 %v, count %d", d.Max(), d.Quantile(1), d.Count())
	}
	var e Delays
	e.Add(5 * time.Millisecond)
	e.Merge(&d)
	if e.Count() != 1002 || e.Max() != 5*time.Millisecond {
		t.Errorf("merged: count %d max %v", e.Count(), e.Max())
	}
	for _, b := range []int64{0, 1, 7, 8, 9, 15, 16, 1 << 20, 1<<40 + 5} {
		if lo := delayLow(delayBucket(b)); lo > b || (b >= 8 && b < 1<<39 && b-lo > b/8) {
			t.Errorf("%d is in a bucket from %d", b, lo)
		}
	}
}
