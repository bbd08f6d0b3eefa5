package sweepserve

import (
	"path/filepath"
	"strings"
)

// container is what a docker or podman run command line says.
type container struct {
	image       string
	args        []string // what follows the image: its command or its arguments
	publish     []string // -p/--publish values, [ip:]host:container[/proto]
	hostNetwork bool     // --network host
	detached    bool     // -d: docker run returns at once, leaving the container running
}

// containerFlags are docker run's options that take no value; every other
// option written without "=" takes the next word.
var containerFlags = map[string]bool{
	"--rm": true, "-d": true, "--detach": true, "-i": true, "--interactive": true, "-t": true, "--tty": true,
	"-it": true, "-ti": true, "--privileged": true, "--init": true, "-P": true, "--publish-all": true,
	"--read-only": true, "-q": true, "--quiet": true, "--no-healthcheck": true, "--oom-kill-disable": true,
}

// containerRun reads a docker or podman run command line.
func containerRun(cmd []string) (container, bool) {
	base := filepath.Base(cmd[0])
	if (base != "docker" && base != "podman") || len(cmd) < 3 {
		return container{}, false
	}
	i := 1
	if cmd[1] == "container" {
		i = 2
	}
	if i >= len(cmd) || cmd[i] != "run" {
		return container{}, false
	}
	var c container
	for i++; i < len(cmd); i++ {
		a := cmd[i]
		if !strings.HasPrefix(a, "-") {
			c.image, c.args = a, cmd[i+1:]
			return c, true
		}
		name, val, has := strings.Cut(a, "=")
		if !has && !containerFlags[name] && i+1 < len(cmd) {
			i++
			val = cmd[i]
		}
		switch name {
		case "-p", "--publish":
			c.publish = append(c.publish, val)
		case "--network", "--net":
			c.hostNetwork = val == "host"
		case "-d", "--detach":
			c.detached = val != "false"
		}
	}
	return container{}, false
}

// isDetached reports whether cmd runs a container detached (-d).
func isDetached(cmd []string) bool {
	_, cmd = splitEnv(cmd)
	if len(cmd) == 0 {
		return false
	}
	c, ok := containerRun(cmd)
	return ok && c.detached
}

// published is the host address and port that reach the container's
// port: the mapping for it, else the only one there is.
func (c container) published(port string) (host, hostPort string, ok bool) {
	type mapping struct{ ip, host, inner string }
	var ms []mapping
	for _, p := range c.publish {
		p, _, _ = strings.Cut(p, "/")
		parts := strings.Split(p, ":")
		switch len(parts) {
		case 2:
			ms = append(ms, mapping{"", parts[0], parts[1]})
		case 3:
			ms = append(ms, mapping{parts[0], parts[1], parts[2]})
		}
	}
	for _, m := range ms {
		if m.inner == port && m.host != "" {
			return m.ip, m.host, true
		}
	}
	if len(ms) == 1 && ms[0].host != "" {
		return ms[0].ip, ms[0].host, true
	}
	return "", "", false
}
