// Package history remembers runs: every bench run and sweep can be stored
// with its summary, configuration, labels, target (URL, model, the server's
// own version where it says) and the path of its record file, so that later
// runs can be listed, trended and checked for regressions against the runs
// before them.
//
// A store is a SQL database: an embedded SQLite file by default (a pure-Go
// driver, so the binary stays static), or a PostgreSQL server when given a
// postgres:// URL, for a team. Its schema is versioned: Open applies the
// migrations a database lacks, in order, each in a transaction, so a store
// written by an older goodput is brought up to date when a newer one opens
// it.
//
// Runs are comparable when their workload, load shape and SLO agree (see
// report.Comparability); each stored run keeps a key of those, and Trend and
// Check work within one key.
package history
