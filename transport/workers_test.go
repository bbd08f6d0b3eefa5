package transport_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/transport"
)

// workerServer serves connections as llama.cpp's server does: one accept
// loop queues them in the order the kernel accepted them, a fixed number
// of workers each serves one connection at a time, a worker waits up to
// idle for a connection's request, and it closes the connection after
// every response. A connection dialled ahead and left idle holds a
// worker for as long as idle.
func workerServer(t *testing.T, workers int, idle time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	queue := make(chan net.Conn, 1024)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(queue)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			queue <- c
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range queue {
				c.SetReadDeadline(time.Now().Add(idle))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err == nil {
					io.Copy(io.Discard, req.Body)
					time.Sleep(10 * time.Millisecond)
					body := completionEvent("a", 1, "stop") + "data: [DONE]\n\n"
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"+body)
				}
				c.Close()
			}
		}()
	}
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// Connections dialled ahead reach such a server in the order they are
// handed out, so that none left idle waits in its queue ahead of one that
// carries a request: with two workers, waves of two requests never wait
// for an idle connection's timeout, though every request needs a new
// connection and spares are dialled for them. The order holds while dials
// are quick; on a loaded machine a loopback dial can take the 2 ms past
// which pools dial in parallel, so the test widens that bound.
func TestDialledAheadInTheServersOrder(t *testing.T) {
	transport.WidenOrderedDial(t, time.Second)
	const idle = 3 * time.Second
	each(t, func(t *testing.T, kind transport.Kind) {
		url := workerServer(t, 2, idle)
		tr := newTransport(t, kind, url, transport.Options{Conns: 2, Spare: 6})
		ctx := context.Background()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", nil)
		if err := tr.Warm(ctx, req, 2); err != nil {
			t.Fatal(err)
		}
		now := clock()
		for wave := range 4 {
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					start := time.Now()
					rec, _ := exchange(t, tr, ctx, url, "p", now, nil)
					if took := time.Since(start); !rec.OK() || took > idle/2 {
						t.Errorf("wave %d: a request took %v (ok %v, %s): it waited behind an idle connection", wave, took, rec.OK(), rec.Msg)
					}
				}()
			}
			wg.Wait()
		}
	})
}
