//go:build !linux

package transport

import "errors"

// eventLoopBuilt says whether this system has the event loop.
const eventLoopBuilt = false

func newEventLoop(Options) (Transport, error) {
	return nil, errors.New("the event loop is built for Linux only")
}
