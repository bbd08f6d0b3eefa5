package cpuload

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// Throttle is a reading of the CPU limit of this process's cgroup (a
// container's CPU limit, as Kubernetes sets it): of its enforcement
// periods, how many there were and how many ran out of quota, and how
// long its tasks were held back in all. A throttled process stops until
// the next period, for milliseconds, whatever the cores are doing. OK is
// false where no such counters are found (not Linux, or no CPU
// controller in reach).
type Throttle struct {
	Periods, Throttled uint64
	Time               time.Duration
	OK                 bool
}

// cgroupRoot is where the cgroup file systems are mounted, and selfCgroup
// the file naming this process's cgroups; tests point them elsewhere.
var (
	cgroupRoot = "/sys/fs/cgroup"
	selfCgroup = "/proc/self/cgroup"
)

// ReadThrottle reads the counters of this process's CPU cgroup: cgroup v2's
// cpu.stat (throttled_usec) or v1's cpu controller (throttled_time, ns).
func ReadThrottle() Throttle {
	b, err := os.ReadFile(selfCgroup)
	if err != nil {
		return Throttle{}
	}
	for _, dir := range cgroupDirs(b) {
		if stat, err := os.ReadFile(path.Join(dir, "cpu.stat")); err == nil {
			if t, ok := parseCPUStat(stat); ok {
				return t
			}
		}
	}
	return Throttle{}
}

// cgroupDirs returns the directories that may hold this process's CPU
// cgroup, from the lines of /proc/self/cgroup (ID:CONTROLLERS:PATH): the
// v1 cpu controller's, under its usual mount points, then the v2
// hierarchy's.
func cgroupDirs(self []byte) []string {
	var v1, v2 []string
	sc := bufio.NewScanner(bytes.NewReader(self))
	for sc.Scan() {
		id, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		ctrls, p, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		if id == "0" && ctrls == "" {
			// Mounted alone, or beside v1 controllers (a hybrid).
			v2 = append(v2, path.Join(cgroupRoot, p), path.Join(cgroupRoot, "unified", p))
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			if c == "cpu" {
				v1 = append(v1, path.Join(cgroupRoot, ctrls, p), path.Join(cgroupRoot, "cpu", p))
				break
			}
		}
	}
	return append(v1, v2...)
}

// parseCPUStat reads cpu.stat's periods and throttling; ok is false when
// it has neither a v2 nor a v1 throttled time.
func parseCPUStat(b []byte) (t Throttle, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), " ")
		if !found {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 63)
		if err != nil {
			continue
		}
		switch k {
		case "nr_periods":
			t.Periods = n
		case "nr_throttled":
			t.Throttled = n
		case "throttled_usec": // v2
			t.Time, ok = time.Duration(n)*time.Microsecond, true
		case "throttled_time": // v1, ns
			t.Time, ok = time.Duration(n), true
		}
	}
	t.OK = ok
	return t, ok
}

// Since returns what happened between a (the earlier reading) and t,
// never negative; OK only when both readings are.
func (t Throttle) Since(a Throttle) Throttle {
	if !t.OK || !a.OK {
		return Throttle{}
	}
	return Throttle{Periods: gain(a.Periods, t.Periods), Throttled: gain(a.Throttled, t.Throttled), Time: gain(a.Time, t.Time), OK: true}
}
