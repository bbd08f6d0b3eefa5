package human

import "net/url"

// URL returns s, a URL, with any password in it masked ("xxxxx"), for
// output and saved files: a --base-url may carry credentials. A string
// that does not parse as a URL is returned as it is.
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}
