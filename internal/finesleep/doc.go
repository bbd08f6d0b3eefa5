// Package finesleep sleeps until a deadline within tens of microseconds,
// without keeping a CPU busy.
//
// Go's timers (time.Sleep, time.Timer) wait in the runtime's network
// poller, which on Linux sleeps in epoll with millisecond resolution: on an
// otherwise idle process they fire up to a millisecond late. A Sleeper
// arms one of the kernel's high-resolution timers (a timerfd) and waits
// for it in that same poller, so the goroutine parks, its processor runs
// other goroutines, and the wake-up comes within tens of microseconds. A
// busy process consults its poller less often than its timers, so the
// wait also ends on a Go timer set for the same deadline, if that fires
// first.
// Polling the clock would be as precise but keeps a CPU busy, and on a
// small machine the scheduler then preempts the polling thread for
// milliseconds at a time; sleeping in the kernel (nanosleep) holds the
// goroutine's processor, stalling the goroutines queued on it.
//
// Elsewhere than Linux a Sleeper waits on a Go timer, which the runtime
// already fires precisely on kqueue systems.
package finesleep
