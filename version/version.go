// Package version says which build of goodput is running: the module
// version and the VCS revision it was built from, read from the build
// information the Go toolchain embeds, or stamped at link time where that
// information is missing (a build from a source tree without .git, as in a
// container build):
//
//	go build -ldflags "-X github.com/goodput-dev/goodput/version.stamped=v1.2.0 \
//	    -X github.com/goodput-dev/goodput/version.stampedRevision=$(git rev-parse HEAD)" ./cmd/goodput
//
// Run headers and reports carry String, so a record file says which build
// measured it.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Set with -ldflags -X at link time; empty means "from the build info".
var (
	stamped         string
	stampedRevision string
)

// Info describes one build.
type Info struct {
	Module    string // module path of the main package, e.g. github.com/goodput-dev/goodput
	Version   string // module version ("v1.2.0"), or "(devel)" for a build from a source tree
	Revision  string // VCS revision (commit hash); empty when unknown
	Time      string // commit time, RFC 3339; empty when unknown
	Modified  bool   // the source tree had uncommitted changes
	GoVersion string // toolchain that built the binary, e.g. go1.26.8
	Platform  string // GOOS/GOARCH
}

// Devel is the version of a build whose version is unknown: a build from
// a source tree without a stamp.
const Devel = "(devel)"

var (
	once sync.Once
	info Info
)

// Get returns the running binary's build description. It never fails: what
// is unknown is left empty, and Version is then Devel.
func Get() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		info = fromBuildInfo(bi, ok, stamped, stampedRevision)
	})
	return info
}

// fromBuildInfo builds an Info from the embedded build information (ok
// false when there is none) and the link-time stamps, which win.
func fromBuildInfo(bi *debug.BuildInfo, ok bool, version, revision string) Info {
	i := Info{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok && bi != nil {
		i.Module = bi.Main.Path
		i.Version = bi.Main.Version
		if bi.GoVersion != "" {
			i.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Revision = s.Value
			case "vcs.time":
				i.Time = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		i.Version = version
	}
	if revision != "" {
		i.Revision = revision
	}
	if i.Version == "" {
		i.Version = Devel
	}
	return i
}

// String is the one-line form written into run headers and reports:
// "v1.2.0", "v1.2.0 (rev 1a2b3c4d5e6f)", "(devel) (rev 1a2b3c4d5e6f, modified)".
// A module version that already names the revision (a pseudo-version, as
// a build in a git checkout gives) is not followed by it again, nor is
// "modified" after a "+dirty" version.
func (i Info) String() string {
	s := i.Version
	var extra []string
	if r := shortRev(i.Revision); r != "" && !strings.Contains(i.Version, r) {
		extra = append(extra, "rev "+r)
	}
	if i.Modified && !strings.HasSuffix(i.Version, "+dirty") {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// shortRev shortens a commit hash to 12 characters, as pseudo-versions do.
func shortRev(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// String returns Get().String().
func String() string { return Get().String() }
