// Package report renders what goodput measured for the people who read it.
// Besides the terminal summary (Text), it renders a run, a sweep or a
// comparison as a self-contained HTML page (WriteRunHTML, WriteSweepHTML,
// WriteCompareHTML), as Markdown for pull requests and issues
// (WriteRunMarkdown, WriteSweepMarkdown); Compare sets runs side by side
// with bootstrap confidence intervals and says when they are not
// comparable. A run's requests as a table are package export's.
//
// A Run is built from records with a RunBuilder (Add per record, Close at
// the end, like metrics.Summary) or loaded from disk with Load, which also
// reads a run's summary file and its server series when they lie beside the
// records.
//
// # Charts
//
// Charts are SVG drawn by package svgchart, not a JavaScript library. The
// report must open offline forever and make no network request at all;
// inline SVG needs no script, so there is nothing to vendor or keep up to
// date, and the page forbids every fetch with its Content-Security-Policy.
// The page's one small script (assets/report.js, allowed by its hash and
// nothing else) adds what SVG cannot: the SLO explorer, which recomputes
// attainment and goodput from the embedded per-request figures, and SVG
// and PNG export of each chart; the page reads fully without it. Data is
// reduced before it is drawn (histograms to at most about 60 bars, series to at most 400
// buckets), so a report's size does not grow with the number of requests.
package report
