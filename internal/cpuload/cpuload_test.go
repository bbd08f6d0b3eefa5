package cpuload

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// The aggregate cpu line gives busy and total ticks: idle and iowait are
// idle, steal is busy (this machine could not use it), guest is already
// in user; each cpuN line is a core.
func TestParseStat(t *testing.T) {
	stat := "cpu  100 10 50 800 40 5 5 20 30 0\ncpu0 50 5 25 400 20 2 3 10 15 0\ncpu1 50 5 25 400 20 3 2 10 15 0\nintr 1 2 3\nctxt 99\n"
	m, err := parseStat([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	// total = 100+10+50+800+40+5+5+20 = 1030; idle = 800+40.
	if m.Total != 1030 || m.Busy != 190 || m.Steal != 20 || m.Cores != 2 {
		t.Errorf("%+v, want total 1030, busy 190, steal 20, 2 cores", m)
	}
	for _, bad := range []string{"", "intr 1\n", "cpu 1 2 x 4\n", "cpu 1 2\n"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) took it", bad)
		}
	}
}

func TestBusyShare(t *testing.T) {
	a := Machine{Busy: 100, Total: 1000}
	tests := []struct {
		b    Machine
		want float64
	}{
		{Machine{Busy: 150, Total: 1100}, 0.5},
		{Machine{Busy: 300, Total: 1200}, 1},
		{Machine{Busy: 100, Total: 1000}, 0}, // no tick passed
		{Machine{Busy: 90, Total: 1100}, 0},  // counters went back: a new boot
	}
	for _, tt := range tests {
		if got := BusyShare(a, tt.b); got != tt.want {
			t.Errorf("BusyShare(%+v, %+v) = %v, want %v", a, tt.b, got, tt.want)
		}
	}
}

func TestStealShare(t *testing.T) {
	a := Machine{Busy: 100, Total: 1000, Steal: 10}
	tests := []struct {
		b    Machine
		want float64
	}{
		{Machine{Busy: 150, Total: 1100, Steal: 15}, 0.05},
		{Machine{Busy: 100, Total: 1000, Steal: 10}, 0}, // no tick passed
		{Machine{Busy: 150, Total: 1100, Steal: 5}, 0},  // counters went back: a new boot
	}
	for _, tt := range tests {
		if got := StealShare(a, tt.b); got != tt.want {
			t.Errorf("StealShare(%+v, %+v) = %v, want %v", a, tt.b, got, tt.want)
		}
	}
}

// The machine's counters are read where the kernel has them, and their
// absence says so.
func TestReadMachine(t *testing.T) {
	old := statPath
	defer func() { statPath = old }()
	statPath = filepath.Join(t.TempDir(), "none")
	if _, err := ReadMachine(); err != ErrNoStat {
		t.Errorf("no /proc/stat: %v", err)
	}
	statPath = old
	if runtime.GOOS != "linux" {
		return
	}
	m, err := ReadMachine()
	if err != nil || m.Total == 0 || m.Cores < 1 {
		t.Fatalf("%+v %v", m, err)
	}
	w := StartWatch(10 * time.Millisecond)
	time.Sleep(60 * time.Millisecond)
	samples := w.Stop()
	if len(samples) == 0 {
		t.Fatal("no samples")
	}
	for _, s := range samples {
		if s < 0 || s > 1 {
			t.Errorf("sample %v outside [0, 1]", s)
		}
	}
}

// Self counts this process's CPU time: spinning for a while adds about
// as much.
func TestSelf(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("not read on this system")
	}
	before := Self()
	for start := time.Now(); time.Since(start) < 30*time.Millisecond; {
	}
	if d := Self() - before; d < 10*time.Millisecond {
		t.Errorf("30 ms of spinning used %v of CPU", d)
	}
}

// The scheduler's latency between two readings counts the waits between
// them.
func TestSchedQuantile(t *testing.T) {
	a := ReadSched()
	done := make(chan bool)
	for range 100 {
		go func() { done <- true }()
		<-done
	}
	b := ReadSched()
	q, n := SchedQuantile(a, b, 0.99)
	if n == 0 || q < 0 {
		t.Errorf("after 100 goroutines: %d waits, p99 %v", n, q)
	}
	if q, n := SchedQuantile(b, b, 0.99); n != 0 || q != 0 {
		t.Errorf("no time between readings: %d waits, p99 %v", n, q)
	}
}
