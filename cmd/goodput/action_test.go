package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// action is the metadata of a composite GitHub Action, as far as
// action.yml may use it: a key outside these fails the decoding.
type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			Uses  string            `yaml:"uses"`
			With  map[string]string `yaml:"with"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// action.yml is a composite action whose expressions name what exists and
// whose scripts take inputs from the environment only (an input spliced
// into a script could run as code).
func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" || len(a.Runs.Steps) != 3 {
		t.Fatalf("action %q: using %q, %d steps", a.Name, a.Runs.Using, len(a.Runs.Steps))
	}
	if in, ok := a.Inputs["base-url"]; !ok || !in.Required {
		t.Error("base-url is not a required input")
	}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	ids := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
		if (s.Uses == "") == (s.Run == "") {
			t.Errorf("step %q: want exactly one of uses and run", s.Name)
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %q: a composite run step needs shell: bash", s.Name)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: an expression inside the script; pass it through env", s.Name)
		}
		for _, v := range append(mapValues(s.Env), mapValues(s.With)...) {
			for _, m := range expr.FindAllStringSubmatch(v, -1) {
				if name, ok := strings.CutPrefix(m[1], "inputs."); ok {
					if _, declared := a.Inputs[name]; !declared {
						t.Errorf("step %q names input %q, which is not declared", s.Name, name)
					}
				}
			}
		}
		if s.Run != "" {
			cmd := exec.Command("bash", "-n")
			cmd.Stdin = strings.NewReader(s.Run)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("step %q: bash -n: %v\n%s", s.Name, err, out)
			}
		}
	}
	for name, o := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$`).FindStringSubmatch(o.Value)
		if m == nil || !ids[m[1]] || !strings.Contains(a.Runs.Steps[2].Run, "echo \""+m[2]+"=") {
			t.Errorf("output %s = %q names no output a step writes", name, o.Value)
		}
	}
}

func mapValues(m map[string]string) []string {
	var v []string
	for _, s := range m {
		v = append(v, s)
	}
	return v
}

// The Benchmark step's script, run as a runner would with this test's
// goodput, benchmarks the server, writes the step's outputs and summary,
// and fails with goodput's exit code when a gate fails.
func TestActionBenchmarkStep(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is not installed")
		}
		t.Skip("no bash")
	}
	a := readAction(t)
	script := a.Runs.Steps[2].Run
	url := startSim(t)
	temp := t.TempDir()
	self, _ := os.Executable()
	wrapper := "#!/bin/sh\nGOODPUT_AS_MAIN=1 exec " + self + " -test.run='^$' -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(temp, "goodput"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		gates string
		code  int
	}{
		// Gates that hold: success.
		{"pass", "p99(ttft)<=30s\nattainment>=0", 0},
		// A gate that cannot hold: exit code 3, and the outputs all the same.
		{"fail", "p99(ttft)<=1us", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			output, summary := filepath.Join(work, "output"), filepath.Join(work, "summary.md")
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary,
				"GOODPUT_BASE_URL="+url, "GOODPUT_ARGS=--request-rate 20 --num-prompts 20 --random-input-len 16 --random-output-len 8 --goodput ttft:2000 tpot:100",
				"GOODPUT_GATES="+c.gates, "GOODPUT_SLO=", "GOODPUT_RESULT_DIR=results", "GOODPUT_RUN_NAME=ci", "OPENAI_API_KEY=")
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", code, c.code, out)
			}
			b, _ := os.ReadFile(output)
			want := "records=results/ci.jsonl\nsummary=results/ci.summary.json\nreport=results/ci.html\nexit-code=" + string(rune('0'+c.code)) + "\n"
			if string(b) != want {
				t.Errorf("GITHUB_OUTPUT:\n%s\nwant\n%s", b, want)
			}
			for _, f := range []string{"results/ci.jsonl", "results/ci.summary.json", "results/ci.html"} {
				if _, err := os.Stat(filepath.Join(work, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "## goodput run: ci") || !strings.Contains(string(md), "| ttft | 20 |") {
				t.Errorf("step summary:\n%s", md)
			}
			if !strings.Contains(string(out), "Gate: p99(ttft)") {
				t.Errorf("the gates were not printed:\n%s", out)
			}
		})
	}
}
