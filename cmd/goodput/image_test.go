package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// instruction is one line of a Dockerfile, continuations joined.
type instruction struct {
	line int
	cmd  string // upper-case keyword: FROM, RUN, …
	args string
}

// parseDockerfile reads the instructions of a Dockerfile: comments and
// blank lines dropped, lines ending in a backslash joined with the next.
func parseDockerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasPrefix(trimmed, "#") {
			continue // a comment inside a continued instruction
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		if !regexp.MustCompile(`^[A-Za-z]+$`).MatchString(cmd) {
			t.Fatalf("Dockerfile:%d: %q is no instruction", start, cmd)
		}
		out = append(out, instruction{start, strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("Dockerfile:%d: the last instruction ends in a continuation", start)
	}
	return out
}

// The image is multi-stage, builds without cgo, stamps the version, and
// runs the static binary as a non-root user on a base without a shell.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	known := []string{"FROM", "RUN", "COPY", "ENV", "ARG", "WORKDIR", "USER", "EXPOSE", "ENTRYPOINT", "CMD", "LABEL"}
	var stages [][]instruction
	for _, in := range parseDockerfile(t, string(b)) {
		if !slices.Contains(known, in.cmd) {
			t.Errorf("Dockerfile:%d: unexpected instruction %s", in.line, in.cmd)
		}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], in)
		}
	}
	if len(stages) != 2 {
		t.Fatalf("%d stages, want a build stage and the image", len(stages))
	}
	build, final := stages[0], stages[1]
	if !regexp.MustCompile(`^golang:\S+ AS build$`).MatchString(build[0].args) {
		t.Errorf("build stage FROM %q", build[0].args)
	}
	var buildRun string
	cgoOff := false
	for _, in := range build {
		if in.cmd == "ENV" && strings.Contains(in.args, "CGO_ENABLED=0") {
			cgoOff = true
		}
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			buildRun = in.args
		}
	}
	if !cgoOff || !strings.Contains(buildRun, "./cmd/goodput") {
		t.Errorf("the build stage does not build ./cmd/goodput with CGO_ENABLED=0: %q", buildRun)
	}
	base := final[0].args
	if base != "scratch" && !strings.HasPrefix(base, "gcr.io/distroless/static") {
		t.Errorf("image FROM %q: want scratch or distroless/static", base)
	}
	get := func(cmd string) []string {
		var v []string
		for _, in := range final {
			if in.cmd == cmd {
				v = append(v, in.args)
			}
		}
		return v
	}
	if u := get("USER"); len(u) != 1 || strings.HasPrefix(u[0], "0") || strings.HasPrefix(u[0], "root") {
		t.Errorf("USER %q: want one non-root user", u)
	}
	if e := get("ENTRYPOINT"); len(e) != 1 || e[0] != `["/goodput"]` {
		t.Errorf("ENTRYPOINT %q: want the exec form of /goodput", e)
	}
	if c := get("COPY"); len(c) != 1 || !strings.HasPrefix(c[0], "--from=build /out/goodput ") {
		t.Errorf("COPY %q: want the binary from the build stage", c)
	}
	// The build stage's own command, run here with a version stamped in:
	// the binary is static and says the stamped version.
	ldflags := regexp.MustCompile(`-ldflags "([^"]+)"`).FindStringSubmatch(buildRun)
	if ldflags == nil {
		t.Fatalf("no -ldflags in %q", buildRun)
	}
	flags := strings.NewReplacer("${VERSION}", "v9.8.7", "${REVISION}", "0123456789abcdef0123").Replace(ldflags[1])
	checkStaticBuild(t, flags, "goodput v9.8.7 (rev 0123456789ab)\n")
}

// checkStaticBuild builds goodput with CGO_ENABLED=0 and ldflags, and
// checks that the binary needs no dynamic loader and no shared library,
// and that --version prints want.
func checkStaticBuild(t *testing.T, ldflags, want string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the static-binary check reads Linux ELF files")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("go is not on PATH: %v", err)
		}
		t.Skip("go is not on PATH")
	}
	out := filepath.Join(t.TempDir(), "goodput")
	// Without the image's -trimpath, which changes nothing of the linking
	// but would compile every package again instead of reusing the build
	// cache of the test run.
	cmd := exec.Command(gobin, "build", "-buildvcs=false", "-ldflags", ldflags, "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader (PT_INTERP): it is not static")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v (%v)", libs, err)
	}
	got, err := exec.Command(out, "--version").Output()
	if err != nil || string(got) != want {
		t.Errorf("--version = %q, %v; want %q", got, err, want)
	}
}
