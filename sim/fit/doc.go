// Package fit fits the simulator's cost model to measurements of a real
// server: goodput record files (and the server metrics scraped with them),
// one file per load. It finds the GPU efficiencies and engine overheads
// that make the simulator, run on the same requests at the same loads,
// measure what the server measured, and writes them as a profile file for
// goodput sim and goodput sweep --virtual.
package fit
