package pretrained

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// realEngine is llama.cpp's llama-server and a tiny model with Llama 2's
// vocabulary, beside the repository (../shared/realengine/README.md).
var realEngine = filepath.Join("..", "..", "..", "shared", "realengine")

// startLlamaServer starts llama-server on a free loopback port and returns
// its base URL; the server is killed when the test ends. Under CI a
// missing binary fails the test, elsewhere it skips it.
func startLlamaServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(realEngine, "llama-server")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama-server missing under CI: %v", err)
		}
		t.Skipf("no llama-server: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-m", filepath.Join(realEngine, "tiny-llama.gguf"),
		"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--threads", "1", "-c", "512", "--parallel", "1")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server not healthy after 60 s; its log:\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serverTokenize asks llama-server's /tokenize for the ids of text.
func serverTokenize(t *testing.T, client *http.Client, url, text string, addSpecial, parseSpecial bool) []int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"content": text, "add_special": addSpecial, "parse_special": parseSpecial})
	resp, err := client.Post(url+"/tokenize", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("/tokenize %q: %v", text, err)
	}
	return out.Tokens
}

// TestLlamaServerTokenize holds the tokenizer of a GGUF model file (read
// from its metadata, the tensors skipped) to the running llama.cpp server
// of the same file, on generated text, with and without BOS and special
// parsing.
func TestLlamaServerTokenize(t *testing.T) {
	url := startLlamaServer(t)
	tok, err := Open(filepath.Join(realEngine, "tiny-llama.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	r := rand.New(rand.NewPCG(21, 23))
	for i := range 150 {
		// JSON carries only valid UTF-8: invalid bytes would reach the
		// server as U+FFFD, so they are replaced here too.
		text := strings.ToValidUTF8(randomText(r, 1+r.IntN(30)), "\uFFFD")
		if i == 0 {
			text = "<s>Hello world</s>"
		}
		for _, c := range []struct{ bos, special bool }{{false, true}, {true, true}, {false, false}} {
			want := serverTokenize(t, client, url, text, c.bos, c.special)
			if got := tok.WithBOS(c.bos).WithSpecialTokens(c.special).Encode(text); !slices.Equal(got, want) {
				t.Fatalf("text %d %q (bos %v, special %v):\n      got %v\n llama-server %v", i, text, c.bos, c.special, got, want)
			}
		}
	}
}
