package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/report/svgchart"
)

//go:embed assets/report.css
var reportCSS string

// reportJS is the page's one script: the SLO explorer and chart export.
//
//go:embed assets/report.js
var reportSource string

// reportJS is the script element's text: the script inside a CDATA
// section hidden from JavaScript by line comments, so that the page stays
// well-formed XML (the script holds < and &) and runs as written.
var reportJS = "\n//<![CDATA[\n" + reportSource + "//]]>\n"

// contentPolicy forbids the page every fetch and frame, and every script
// but its own: the report is one file that must work offline, and a
// browser that enforces the policy proves it makes no request. The one
// inline script is allowed by its hash, so that no other script (one
// smuggled in through a label or an error message, say) can run. Styles
// are inline; images are data: URLs only: the empty favicon, which keeps
// the browser from asking for /favicon.ico, and a chart drawn to a PNG.
var contentPolicy = "default-src 'none'; script-src '" + scriptHash(reportJS) + "'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// scriptHash is the Content-Security-Policy source that allows an inline
// script whose text is js.
func scriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// HTMLOptions adjust an HTML report.
type HTMLOptions struct {
	// Title replaces the heading; empty means one naming the run or sweep.
	Title string
	// Tool names the program in the footer, e.g. "goodput 1.2.0";
	// empty means "goodput".
	Tool string
	// LongGap, when above 0, is the gap between chunks (seconds) above
	// which the request timeline marks a request's longest gap, instead
	// of its own choice from the run (vLLM's upper
	// --timeline-itl-thresholds).
	LongGap float64
}

// page writes an HTML document. The markup is also well-formed XML (every
// element closed, every attribute quoted, text escaped), which keeps the
// structure testable with encoding/xml.
type page struct {
	b strings.Builder
}

func (p *page) w(s string)                      { p.b.WriteString(s) }
func (p *page) f(format string, args ...any)    { fmt.Fprintf(&p.b, format, args...) }
func (p *page) text(tag, class, s string)       { p.f(`<%s class="%s">%s</%s>`, tag, class, esc(s), tag) }
func (p *page) plain(tag, s string)             { p.f(`<%s>%s</%s>`, tag, esc(s), tag) }
func (p *page) chart(f *svgchart.Frame)         { f.Render(&p.b) }
func (p *page) sectionEnd()                     { p.w("</section>\n") }
func (p *page) gridStart()                      { p.w(`<div class="grid">`) }
func (p *page) gridEnd()                        { p.w("</div>\n") }
func (p *page) intro(s string)                  { p.text("p", "intro", s) }
func (p *page) section(id, title string)        { p.f(`<section id="%s"><h2>%s</h2>`, esc(id), esc(title)) }
func (p *page) finish(w io.Writer) (int, error) { return io.WriteString(w, p.b.String()) }

func (p *page) head(title, sub string) {
	p.w("<!DOCTYPE html>\n")
	p.w(`<html lang="en"><head><meta charset="utf-8"/>`)
	p.f(`<meta http-equiv="Content-Security-Policy" content="%s"/>`, esc(contentPolicy))
	p.w(`<meta name="viewport" content="width=device-width, initial-scale=1"/>`)
	p.w(`<meta name="generator" content="goodput"/>`)
	p.f(`<title>%s</title>`, esc(title))
	p.w(`<link rel="icon" href="data:,"/>`)
	p.f("<style>\n%s</style>\n", reportCSS)
	p.w("</head>\n<body>\n<header>")
	p.plain("h1", title)
	p.text("p", "sub", sub)
	p.w("</header>\n")
}

// data writes embedded data: JSON, already safe to place in a script
// element (see safeJSON).
func (p *page) data(id string, data []byte) {
	if len(data) > 0 {
		p.f(`<script type="application/json" id="%s">`, esc(id))
		p.b.Write(data)
		p.w("</script>\n")
	}
}

// tail writes the embedded data, the footer and the page's script, and
// closes the document.
func (p *page) tail(id string, data []byte, tool string) {
	p.data(id, data)
	if tool == "" {
		tool = "goodput"
	}
	p.f(`<footer>Made by %s. This page is self-contained: it loads nothing from the network, and its one inline script only recomputes figures from the page and saves charts. Hover over bars, points and time spans for their values.</footer>`, esc(tool))
	// The script is written as is, not escaped: the policy's hash is of
	// these exact bytes, and the text holds neither "</script" nor "]]>".
	p.w("<script>")
	p.w(reportJS)
	p.w("</script>\n")
	p.w("\n</body></html>\n")
}

// verdict is the box under the heading.
type verdict struct {
	class    string // "pass", "fail" or "info"
	headline string
	items    []verdictItem
	notes    []string
}

type verdictItem struct {
	class, text string
}

func (p *page) verdict(v verdict) {
	p.f(`<section id="verdict" class="verdict %s">`, v.class)
	p.text("p", "headline", v.headline)
	if len(v.items) > 0 {
		p.w(`<ul class="gates">`)
		for _, it := range v.items {
			p.text("li", it.class, it.text)
		}
		p.w("</ul>")
	}
	if len(v.notes) > 0 {
		p.w(`<ul class="notes">`)
		for _, n := range v.notes {
			p.plain("li", n)
		}
		p.w("</ul>")
	}
	p.w("</section>\n")
}

// card is one headline number.
type card struct {
	key, value, detail string
}

func (p *page) cards(cs []card) {
	p.w(`<div class="cards">`)
	for _, c := range cs {
		p.w(`<div class="card">`)
		p.text("div", "k", c.key)
		p.text("div", "v", c.value)
		if c.detail != "" {
			p.text("div", "d", c.detail)
		}
		p.w("</div>")
	}
	p.w("</div>\n")
}

// cell is one table cell: left-aligned text when left is set, else a
// right-aligned number.
type cell struct {
	s     string
	class string
}

func (p *page) table(class string, head []string, rows [][]cell) {
	p.f(`<div class="scroll"><table class="%s"><thead><tr>`, esc(class))
	for i, h := range head {
		// A column is aligned as its cells are: text left, numbers right.
		cls := ""
		if i == 0 || (len(rows) > 0 && i < len(rows[0]) && rows[0][i].class != "") {
			cls = "l"
		}
		p.f(`<th class="%s">%s</th>`, cls, esc(h))
	}
	p.w("</tr></thead><tbody>")
	for _, r := range rows {
		p.w("<tr>")
		for _, c := range r {
			p.f(`<td class="%s">%s</td>`, c.class, esc(c.s))
		}
		p.w("</tr>")
	}
	p.w("</tbody></table></div>\n")
}

// safeJSON makes JSON safe inside a <script> element and inside XML: the
// characters <, > and & only occur in JSON strings, where their \u escapes
// mean the same.
func safeJSON(b []byte) []byte {
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
	return []byte(r.Replace(string(b)))
}

// seconds writes a latency in seconds for people: milliseconds below a
// second, seconds above.
func seconds(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case math.Abs(v) < 1:
		return human.Brief(v*1e3) + " ms"
	}
	return human.Brief(v) + " s"
}

// ms writes seconds as milliseconds with two decimals, the precision of
// `vllm bench serve`'s tables.
func ms(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v*1e3, 'f', 2, 64)
}

// percent writes a fraction as a percentage with one decimal.
func percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + " %"
}

// fixed writes v with d decimals, or n/a.
func fixed(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// signedPercent writes a fraction as a percentage with its sign.
func signedPercent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f %%", 100*v)
}

// esc escapes text for an HTML text node or a quoted attribute.
func esc(s string) string { return html.EscapeString(s) }

// usable reports whether v is a finite number.
func usable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
