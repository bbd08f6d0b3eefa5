//go:build race

package serverview

const raceEnabled = true
