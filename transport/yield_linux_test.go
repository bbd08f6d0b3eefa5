package transport_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/transport"
)

// When one read of the event loop finds several responses ready, the
// request whose response ended first hears of it at once, before the loop
// reads the others: a closed loop's next request then leaves when it is
// due, not once the loop has parsed every other ready socket (a wave of
// bulk responses is milliseconds of work). With one processor the order is
// the scheduler's: the loop yields to the woken request, and only the
// scheduler's fairness (now and then it runs the yielder first) lets
// another response or two end before that request hears of its end. A loop
// that woke the request only after its batch has all the others end first.
func TestAnEndedExchangeIsHeardBeforeTheLoopReadsOn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const others, mostBefore = 16, 4
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String()
	tr := newTransport(t, transport.EventLoop, url, transport.Options{Loops: 1, Conns: others + 1})

	// The server passes on a connection once a request came on it (the
	// transport also dials spares, which carry none).
	conns := make(chan net.Conn, 10*(others+1))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				if _, err := c.Read(make([]byte, 64<<10)); err != nil {
					c.Close()
					return
				}
				conns <- c
			}()
		}
	}()

	// Five rounds: a round whose responses the loop happened to find in
	// more than one read shows nothing, so one round is not enough.
	for round := range 5 {
		var (
			mu  sync.Mutex
			log []string
		)
		note := func(s string) {
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
		}
		// The first request is "first": it has reached the server before
		// the others are sent, so its response can be written first.
		var wg sync.WaitGroup
		send := func(name string) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wrap := func(r transport.Receiver) transport.Receiver { return endNoter{r, func() { note("end " + name) }} }
				rec, _ := exchange(t, tr, context.Background(), url, name, clock(), wrap)
				if !rec.OK() {
					t.Errorf("round %d: %s failed: %s", round, name, rec.Msg)
				}
				note("heard " + name)
			}()
		}
		send("first")
		var accepted []net.Conn
		accepted = append(accepted, receive(t, conns))
		for i := range others {
			send(fmt.Sprint("other-", i))
		}
		for range others {
			accepted = append(accepted, receive(t, conns))
		}
		// Every response whole, the first one's first, in one go: the
		// loop, parked meanwhile on the one processor, wakes to find
		// them all ready.
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			chunk(completionEvent("a", 1, "length")) + chunk("data: [DONE]\n\n") + "0\r\n\r\n"
		for _, c := range accepted {
			if _, err := c.Write([]byte(resp)); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		for _, c := range accepted {
			c.Close()
		}
		heard := slices.Index(log, "heard first")
		if before := heard - 1; heard < 1 || log[0] != "end first" || before > mostBefore {
			t.Fatalf("round %d: the first request heard its end after %d other responses ended, want at most %d:\n%v", round, before, mostBefore, log)
		}
	}
}

// receive returns the next accepted connection, failing after 10 s.
func receive(t *testing.T, conns <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not get the request within 10 s")
		return nil
	}
}

// chunk frames s as one HTTP/1.1 chunk.
func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

// endNoter calls noted when its Receiver's exchange ends.
type endNoter struct {
	transport.Receiver
	noted func()
}

func (e endNoter) End(err error, at int64) {
	e.Receiver.End(err, at)
	e.noted()
}
