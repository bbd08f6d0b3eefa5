// Command tlsstream serves OpenAI-style completion streams over TLS with
// fixed timing, for measuring what a client adds against an https://
// server (BENCHMARKS.md, "Connections ready past their TLS handshake"):
// each response's first token is due -ttft after the request arrived and
// each next one -itl later, -tokens in all, then a usage chunk and
// [DONE]. It prints its URL (a self-signed certificate: give the client
// --insecure) and serves for -for.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"
)

func main() {
	ttft := flag.Duration("ttft", 50*time.Millisecond, "time to the first token")
	itl := flag.Duration("itl", 10*time.Millisecond, "time between tokens")
	tokens := flag.Int("tokens", 16, "tokens per response")
	http2 := flag.Bool("http2", false, "offer HTTP/2")
	serveFor := flag.Duration("for", 5*time.Minute, "how long to serve")
	flag.Parse()

	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
		case "/v1/completions":
			stream(w, time.Now(), *ttft, *itl, *tokens)
		default:
			http.NotFound(w, r)
		}
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // clients that close unused connections
	s.EnableHTTP2 = *http2
	s.StartTLS()
	fmt.Println(s.URL)
	time.Sleep(*serveFor)
	s.Close()
}

// stream writes n tokens, the first at start+ttft, each next itl later.
func stream(w http.ResponseWriter, start time.Time, ttft, itl time.Duration, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	for i := range n {
		time.Sleep(time.Until(start.Add(ttft + time.Duration(i)*itl)))
		finish := "null"
		if i == n-1 {
			finish = `"length"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" a\",\"finish_reason\":%s}]}\n\n", finish)
		if f != nil {
			f.Flush()
		}
	}
	fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", n, 8+n)
}
