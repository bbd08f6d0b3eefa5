package load

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/transport"
)

// eachTransport runs f once per transport this build has (the event loop
// and net/http on Linux), as a subtest named for it: every test of the
// HTTP path holds for both.
func eachTransport(t *testing.T, f func(t *testing.T, kind transport.Kind)) {
	t.Helper()
	for _, kind := range transport.Kinds() {
		t.Run(strings.ReplaceAll(string(kind), "/", ""), func(t *testing.T) { f(t, kind) })
	}
}

// newTransport returns a transport of kind to url, closed when the test
// ends.
func newTransport(t testing.TB, kind transport.Kind, url string, o ClientOptions) transport.Transport {
	t.Helper()
	o.Kind = kind
	tr, err := NewTransport(url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}
