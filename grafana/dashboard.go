// Package grafana holds goodput's Grafana dashboard (goodput.json, with a
// provisioning example beside it): the panels an LLM-serving dashboard
// needs (TTFT and TPOT/ITL at p50, p90 and p99, tokens per second per
// replica, goodput under the SLO, queue vs prefill vs decode time, KV cache
// usage, batch size, prefix-cache hits) for vLLM and SGLang servers, set
// beside goodput's own client metrics, with the knee signal and the
// replica count of goodput watch --advise.
//
// Every server query names the vLLM metric and the SGLang one joined by
// "or", so one dashboard serves either engine. The package reads the
// dashboard back for its tests.
package grafana

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// JSON is the dashboard as Grafana imports it.
//
//go:embed goodput.json
var JSON []byte

// Dashboard is the part of a Grafana dashboard the tests read.
type Dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []Panel `json:"panels"`
	Templating struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Panel is one panel; rows hold none of their own targets.
type Panel struct {
	ID      int      `json:"id"`
	Type    string   `json:"type"`
	Title   string   `json:"title"`
	Targets []Target `json:"targets"`
}

// Target is one query of a panel.
type Target struct {
	RefID  string `json:"refId"`
	Expr   string `json:"expr"`
	Legend string `json:"legendFormat"`
}

// Variable is a template variable.
type Variable struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	AllValue string `json:"allValue"`
}

// Load parses the embedded dashboard.
func Load() (*Dashboard, error) {
	var d Dashboard
	if err := json.Unmarshal(JSON, &d); err != nil {
		return nil, fmt.Errorf("grafana/goodput.json: %w", err)
	}
	return &d, nil
}

// Query is one panel query with where it comes from.
type Query struct {
	Panel string
	RefID string
	Expr  string
}

// Queries lists every panel query, in panel order.
func (d *Dashboard) Queries() []Query {
	var out []Query
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			out = append(out, Query{Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
		}
	}
	return out
}

// variable matches a Grafana variable in a query: $name, ${name} or
// ${name:format}.
var variable = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// Expand replaces the Grafana variables of expr by their values in vars,
// as Grafana does before it sends a query; a variable missing from vars is
// an error, naming it.
func Expand(expr string, vars map[string]string) (string, error) {
	var missing []string
	out := variable.ReplaceAllStringFunc(expr, func(m string) string {
		sub := variable.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("query %q: no value for $%s", expr, strings.Join(missing, ", $"))
	}
	return out, nil
}

// TestVars are the values a query gets when every variable is at "All":
// the template variables' allValue, and a rate interval of a minute.
func (d *Dashboard) TestVars() map[string]string {
	vars := map[string]string{"__rate_interval": "1m", "__interval": "15s", "__range": "30m"}
	for _, v := range d.Templating.List {
		if v.AllValue != "" {
			vars[v.Name] = v.AllValue
		}
	}
	return vars
}
