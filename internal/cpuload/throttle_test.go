package cpuload

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The CPU limit's counters are found where this process's cgroup is: the
// v2 hierarchy's cpu.stat (throttled_usec), or the v1 cpu controller's
// (throttled_time, in ns), mounted alone or with cpuacct.
func TestReadThrottleFindsTheCgroup(t *testing.T) {
	write := func(t *testing.T, root, rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, self string
		files      map[string]string
		want       Throttle
	}{
		{"v2", "0::/kubepods/pod1/c1\n",
			map[string]string{"kubepods/pod1/c1/cpu.stat": "usage_usec 900\nnr_periods 40\nnr_throttled 12\nthrottled_usec 34567\n"},
			Throttle{Periods: 40, Throttled: 12, Time: 34567 * time.Microsecond, OK: true}},
		{"v2 in a cgroup namespace", "0::/\n",
			map[string]string{"cpu.stat": "nr_periods 3\nnr_throttled 1\nthrottled_usec 5\n"},
			Throttle{Periods: 3, Throttled: 1, Time: 5 * time.Microsecond, OK: true}},
		{"v1 cpu,cpuacct", "12:memory:/x\n4:cpu,cpuacct:/docker/abc\n0::/\n",
			map[string]string{"cpu,cpuacct/docker/abc/cpu.stat": "nr_periods 10\nnr_throttled 2\nthrottled_time 7000000\n"},
			Throttle{Periods: 10, Throttled: 2, Time: 7 * time.Millisecond, OK: true}},
		{"v1 cpu alone", "2:cpuacct:/\n1:cpu:/\n0::/\n",
			map[string]string{"cpu/cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_time 0\nnr_bursts 0\n"},
			Throttle{OK: true}},
		{"a hybrid's v2", "0::/user.slice\n",
			map[string]string{"unified/user.slice/cpu.stat": "nr_periods 8\nnr_throttled 8\nthrottled_usec 1000\n"},
			Throttle{Periods: 8, Throttled: 8, Time: time.Millisecond, OK: true}},
		{"no CPU controller", "4:memory:/x\n", nil, Throttle{}},
		{"a cpu.stat without throttling", "0::/\n", map[string]string{"cpu.stat": "usage_usec 5\n"}, Throttle{}},
	}
	defer func(r, s string) { cgroupRoot, selfCgroup = r, s }(cgroupRoot, selfCgroup)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, body := range tt.files {
				write(t, root, rel, body)
			}
			write(t, root, "self-cgroup", tt.self)
			cgroupRoot, selfCgroup = root, filepath.Join(root, "self-cgroup")
			if got := ReadThrottle(); got != tt.want {
				t.Errorf("ReadThrottle = %+v, want %+v", got, tt.want)
			}
		})
	}
	selfCgroup = filepath.Join(t.TempDir(), "none")
	if got := ReadThrottle(); got.OK {
		t.Errorf("no /proc/self/cgroup: %+v", got)
	}
}

func TestThrottleSince(t *testing.T) {
	a := Throttle{Periods: 10, Throttled: 2, Time: time.Millisecond, OK: true}
	b := Throttle{Periods: 50, Throttled: 9, Time: 31 * time.Millisecond, OK: true}
	if d := b.Since(a); d != (Throttle{Periods: 40, Throttled: 7, Time: 30 * time.Millisecond, OK: true}) {
		t.Errorf("b since a = %+v", d)
	}
	if d := a.Since(b); d != (Throttle{OK: true}) {
		t.Errorf("a since b = %+v, want nothing", d)
	}
	if d := b.Since(Throttle{}); d.OK {
		t.Errorf("since an unknown reading = %+v", d)
	}
}
