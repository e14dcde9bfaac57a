package guard

import "strings"

// leaseHit asks Request.Leased about a written path c (cleaned, absolute)
// as written, through the links the command made, and with the symbolic
// links that exist resolved: a write through a link into a leased
// directory is the leased file's write.
func (e *env) leaseHit(c string, tree bool) string {
	if e.leased == nil || c == "" || !isAbs(c) {
		return ""
	}
	if strings.IndexByte(c, unknown) >= 0 {
		// A part the guard cannot know: taken as a wildcard within its
		// component.
		c = strings.ReplaceAll(c, string(unknown), "*")
	}
	if why := e.leased(c, tree); why != "" {
		return why
	}
	if t := e.throughLinks(c, tree); t != "" {
		if why := e.leased(t, tree); why != "" {
			return why
		}
	}
	if strings.ContainsAny(c, "*?[") || strings.HasPrefix(c, "/dev/") {
		return ""
	}
	if r := resolve(c); r != "" && r != c {
		return e.leased(r, tree)
	}
	return ""
}

// leaseReason is the reason for a write refused by a path lease: via
// names the tool, p the path as the agent wrote it, why the lease and
// what to do (from Request.Leased).
func leaseReason(via, p, why string) string {
	p = shown(p, "")
	if len(p) > 100 {
		p = "…" + strings.ToValidUTF8(p[len(p)-99:], "")
	}
	if len(via) > 60 {
		via = strings.ToValidUTF8(via[:59], "") + "…"
	}
	r := "Blocked: " + via + " would change " + p + ", which " + why
	if len(r) > maxLeaseReason {
		r = strings.ToValidUTF8(r[:maxLeaseReason-3], "") + "…"
	}
	return r
}

// maxLeaseReason caps a lease's deny reason (bytes).
const maxLeaseReason = 600
