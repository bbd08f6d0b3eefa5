// Package svgchart draws the charts of goodput's pages as inline SVG:
// histograms with labelled markers (HistogramChart), series over time
// (TimeChart), curves of points with annotated picks and reference lines
// (CurveChart) and one stacked bar (StackChart). A Frame is a chart under
// construction: its two Scales, its legend and the elements drawn in its
// plot; a caller with a drawing of its own adds elements with Printf and
// places them with the scales' Pos.
//
// SVG needs no script, prints sharply at any size, and a <title> inside
// each bar, point and time bucket gives hover values in every browser.
// The charts a benchmark needs are few and fixed, so a small renderer
// costs less than a dependency would. Charts carry CSS classes (bar, line
// s0, s1, …, marker, slo, pick) and no colours: the page that holds them
// styles them. Callers reduce their data first (a histogram to Bars, a
// series to buckets); a chart draws every value it is given.
//
// Text given to a chart (titles, labels, hovers) is escaped here; numbers
// are written with human.Brief.
package svgchart
