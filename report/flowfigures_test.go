package report

// sessionFigures are the figures the run page and the Markdown report both
// show for the sessions worked example: each row's label, the text
// summary's line that holds the same figure ("" where it has none), and
// the value.
var sessionFigures = []struct{ label, summary, want string }{
	{"sessions", "", "3"},
	{"turns", "", "7 (2.33 per session)"},
	{"sessions with a failed turn", "", "0"},
	{"good sessions (every turn good)", "Good sessions (every request good):", "1 of 3 (33.33%)"},
	{"session goodput (tok/s)", "Session goodput (tok/s):", "5.83"},
	// 1 good session over 1.20 s
	{"good sessions per second", "", "0.83"},
}
