package human

import "testing"

func TestURLMasksThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:s3cret@127.0.0.1:8000/v1": "http://user:xxxxx@127.0.0.1:8000/v1",
		"http://user@h:1":                      "http://user@h:1",
		"http://h:1/metrics":                   "http://h:1/metrics",
		"%zz":                                  "%zz",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}
