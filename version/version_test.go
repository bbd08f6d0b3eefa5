package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	cases := []struct {
		name              string
		bi                *debug.BuildInfo
		ok                bool
		version, revision string // link-time stamps
		want              string
		wantRev           string
	}{
		// go install …@v1.2.0: the module version, no VCS settings.
		{"released module", &debug.BuildInfo{Main: debug.Module{Path: "github.com/goodput-dev/goodput", Version: "v1.2.0"}}, true, "", "", "v1.2.0", ""},
		// go build in a git checkout: (devel) and the revision.
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", rev, "vcs.modified", "false")}, true, "", "", "(devel) (rev 1a2b3c4d5e6f)", rev},
		// Uncommitted changes are said.
		{"dirty checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", rev, "vcs.modified", "true")}, true, "", "", "(devel) (rev 1a2b3c4d5e6f, modified)", rev},
		// A pseudo-version already holds the short revision: not twice.
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129100000-1a2b3c4d5e6f"}, Settings: settings("vcs.revision", rev)}, true, "", "", "v0.0.0-20261129100000-1a2b3c4d5e6f", rev},
		// Go's own mark of uncommitted changes is not repeated.
		{"dirty pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129100000-1a2b3c4d5e6f+dirty"}, Settings: settings("vcs.revision", rev, "vcs.modified", "true")}, true, "", "", "v0.0.0-20261129100000-1a2b3c4d5e6f+dirty", rev},
		// A container build without .git is stamped at link time; stamps win.
		{"stamped", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "v1.3.0", "abc123", "v1.3.0 (rev abc123)", "abc123"},
		// No build info at all (a binary built without module support).
		{"no build info", nil, false, "", "", "(devel)", ""},
		// An empty module version is unknown, not empty.
		{"empty version", &debug.BuildInfo{}, true, "", "", "(devel)", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := fromBuildInfo(c.bi, c.ok, c.version, c.revision)
			if got := i.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
			if i.Revision != c.wantRev {
				t.Errorf("Revision = %q, want %q", i.Revision, c.wantRev)
			}
			if i.GoVersion == "" || i.Platform == "" {
				t.Errorf("toolchain or platform missing: %+v", i)
			}
		})
	}
}

// The test binary has build info; Get reads it once and agrees with String.
func TestGet(t *testing.T) {
	i := Get()
	if i.Version == "" || i.String() != String() {
		t.Errorf("Get() = %+v, String() = %q", i, String())
	}
}
