package serverview

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultMetricsURL returns the /metrics URL of the server behind baseURL:
// the same scheme, host and port, with the path's trailing "/v1" replaced by
// "/metrics" (so "http://gpu-7:8000/v1" gives "http://gpu-7:8000/metrics").
// A path prefix before "/v1" is kept, for servers mounted under one by a
// gateway; a URL whose path already ends in "/metrics" is returned as it is,
// so callers may pass either form. A URL without a scheme is taken as http.
// The query and fragment are dropped.
//
// It fails, naming the URL, when baseURL is empty, not http(s), or has no
// host.
func DefaultMetricsURL(baseURL string) (string, error) {
	raw := strings.TrimSpace(baseURL)
	if raw == "" {
		return "", fmt.Errorf("server url is empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server url %q: %w", baseURL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("server url %q: scheme %q is not http or https", baseURL, u.Scheme)
	case u.Host == "":
		return "", fmt.Errorf("server url %q: no host", baseURL)
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/metrics") {
		p = strings.TrimSuffix(p, "/v1") + "/metrics"
	}
	u.Path, u.RawPath = p, ""
	return u.String(), nil
}
