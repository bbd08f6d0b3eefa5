package kube

import "strings"

// Kubernetes expands a container's args: $(NAME) becomes the value of the
// container's variable NAME when it has one, and $$ becomes $. The
// arguments the user gave (the command, the merge's flags, the
// simulator's) must reach goodput as given, so each $ in them is written
// $$, but for a reference to a Secret's variable (Options.Secrets, from
// --api-key-secret and --secret-env): the user writes $(ENV) to have it
// expanded there, and only there, since that is how a credential reaches
// the command without its value in the manifests. The references goodput
// writes itself (RunDir, the start) are added after, unescaped.

// literalArgs returns args written so that every pod runs them as given,
// but for $(ENV) naming one of o's Secrets.
func (o *Options) literalArgs(args []string) []string {
	refs := make(map[string]bool, len(o.Secrets))
	for _, s := range o.Secrets {
		refs[s.Env] = true
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = literal(a, refs)
	}
	return out
}

// literal returns arg with every $ doubled, but for the references
// $(NAME) to a name in refs, kept to be expanded.
func literal(arg string, refs map[string]bool) string {
	if !strings.Contains(arg, "$") {
		return arg
	}
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		if arg[i] != '$' {
			b.WriteByte(arg[i])
			continue
		}
		if rest, ok := strings.CutPrefix(arg[i:], "$("); ok {
			if name, _, ok := strings.Cut(rest, ")"); ok && refs[name] {
				b.WriteString("$(" + name + ")")
				i += len(name) + 2
				continue
			}
		}
		b.WriteString("$$")
	}
	return b.String()
}

// SecretRef says whether arg names one of o's Secrets' variables as
// $(ENV), which the shard pods expand to the Secret's value.
func (o *Options) SecretRef(arg string) bool {
	for _, s := range o.Secrets {
		if strings.Contains(arg, "$("+s.Env+")") {
			return true
		}
	}
	return false
}
