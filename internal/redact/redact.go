// Package redact is ragscope's one rule for hiding credentials that travel
// inside URLs, so that every URL ragscope prints or logs (errors, the
// resolved configuration, the --debug log, status lines, JSON) is redacted
// the same way.
//
// The rule: a URL's user information (user:password@) is replaced as a
// whole, and so is the value of every query or fragment parameter whose
// name carries a credential (CredentialParam). Everything else of the URL
// is kept as written, so the message still says which host and path were
// meant. The package imports no network client: config, cli, retrieval and
// every provider may use it.
package redact

import (
	"net/url"
	"slices"
	"strings"
)

// Mark replaces a hidden credential.
const Mark = "[redacted]"

// MinSecretLen is the shortest credential hidden wherever it appears in a
// text (Secrets, for the values a configuration collects): a shorter one
// ("u" in u:pw@host) would hide ordinary words. It is still hidden where
// it belongs (its URL, by Text).
const MinSecretLen = 6

// Secrets returns s with every occurrence of each of secrets (an API key,
// a credential taken from a configured URL) replaced by Mark, and the
// credentials of every URL in it hidden (Text). It is the one scanner for
// text that may echo a key: a provider's error, a message, a log record,
// a written file. Longer secrets are replaced first; empty ones are skipped; a caller filters short ones
// (MinSecretLen) when they are not known to be keys.
func Secrets(s string, secrets ...string) string { return Text(Hide(s, secrets...)) }

// Hide returns s with every occurrence of each of secrets replaced by
// Mark, the longest first, and nothing else changed: for text whose URLs
// are data to keep as they are (a report quoting the chunks' text).
func Hide(s string, secrets ...string) string {
	if len(secrets) > 1 {
		// The longest first: a secret inside another is not left to cut
		// the longer one in two.
		secrets = slices.Clone(secrets)
		slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	}
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, Mark)
		}
	}
	return s
}

// credentialWords are the endings of a normalised parameter name
// (CredentialParam) that carry a credential: key (key, api_key, apikey,
// x-goog-api-key, …), token (token, access_token, x-amz-security-token, …),
// sig and signature (signed URLs), secret (client_secret), password,
// passwd and pwd, auth and authorization, credential(s) (x-amz-credential).
var credentialWords = []string{
	"key", "token", "sig", "signature", "secret", "password", "passwd", "pwd",
	"auth", "authorization", "credential", "credentials",
}

// CredentialParam reports whether a query or fragment parameter named
// name carries a credential. The name is percent-decoded, lower-cased and
// stripped of '-', '_' and '.'; it is a credential when it ends with one
// of key, token, sig, signature, secret, password, passwd, pwd, auth,
// authorization, credential or credentials. The rule errs on the side of
// hiding: a "monkey" parameter is hidden too.
func CredentialParam(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	n := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, name)
	for _, w := range credentialWords {
		if strings.HasSuffix(n, w) {
			return true
		}
	}
	return false
}

// URL returns raw with its credentials replaced by Mark: the user
// information before the host, and the value of every query or fragment
// parameter CredentialParam names. raw need not parse as a URL; a value
// without a scheme ("user:pw@host:6334") is read as host first. Nothing
// else changes, so URL(URL(s)) == URL(s).
func URL(raw string) string {
	prefix, _, hasUser, host, tail := split(raw)
	authority := host
	if hasUser {
		authority = Mark + "@" + host
	}
	var b strings.Builder
	b.Grow(len(raw))
	b.WriteString(prefix)
	b.WriteString(authority)
	path, frag, hasFrag := strings.Cut(tail, "#")
	path, query, hasQuery := strings.Cut(path, "?")
	b.WriteString(path)
	if hasQuery {
		b.WriteByte('?')
		b.WriteString(params(query))
	}
	if hasFrag {
		b.WriteByte('#')
		b.WriteString(params(frag))
	}
	return b.String()
}

// Strip returns raw without its credentials, for a URL that is shown but
// never used to sign in (the docs base citation URLs are built on): the
// user information and every parameter CredentialParam names are removed,
// not marked, so the result stays a valid URL; a query or fragment left
// empty goes too. It reports whether anything was removed.
func Strip(raw string) (string, bool) {
	prefix, _, removed, authority, tail := split(raw)
	path, frag, hasFrag := strings.Cut(tail, "#")
	path, query, hasQuery := strings.Cut(path, "?")
	out := prefix + authority + path
	for _, part := range []struct {
		sep  string
		text string
		has  bool
	}{{"?", query, hasQuery}, {"#", frag, hasFrag}} {
		if !part.has {
			continue
		}
		kept, cut := dropParams(part.text)
		removed = removed || cut
		if kept != "" || !cut {
			out += part.sep + kept
		}
	}
	return out, removed
}

// dropParams removes the credential parameters of a query or fragment.
func dropParams(q string) (string, bool) {
	if !strings.Contains(q, "=") {
		return q, false
	}
	var kept []string
	cut := false
	for _, p := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' }) {
		if name, _, ok := strings.Cut(p, "="); ok && CredentialParam(name) {
			cut = true
			continue
		}
		kept = append(kept, p)
	}
	if !cut {
		return q, false
	}
	return strings.Join(kept, "&"), true
}

// split cuts raw into the scheme with "://" (or "//", or nothing), the user
// information (hasUser when there is an '@' before the first '/' after the
// scheme, even past a '?' or '#': an unescaped '?' in a password must not
// show the rest of it), the host and port, and the tail from the first
// '/', '?' or '#' after the host.
func split(raw string) (prefix, userinfo string, hasUser bool, host, tail string) {
	rest := raw
	if i := strings.Index(raw, "://"); i > 0 && isScheme(raw[:i]) {
		prefix, rest = raw[:i+3], raw[i+3:]
	} else if strings.HasPrefix(raw, "//") {
		prefix, rest = "//", raw[2:]
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		slash = len(rest)
	}
	if at := strings.LastIndexByte(rest[:slash], '@'); at >= 0 {
		userinfo, hasUser, rest = rest[:at], true, rest[at+1:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return prefix, userinfo, hasUser, rest[:end], rest[end:]
}

// params redacts the credential values of a query or fragment
// ("a=1&key=x;sig=y"); parts without '=' are kept.
func params(q string) string { return redactPairs(q, query) }

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// endsURL reports whether c ends a URL inside text: space, a control
// character, a quote, a bracket of markup or a backslash (an escaped
// quote in logged JSON) cannot be part of a URL as written.
func endsURL(c byte) bool {
	switch c {
	case ' ', '"', '\'', '`', '<', '>', '\\', '{', '}', '|', '^':
		return true
	}
	return c < 0x20 || c == 0x7f
}

// trailing is punctuation that ends a sentence rather than a URL.
const trailing = ".,;:!?)]"

// trimURL returns the end of the URL u = s[:end] once the punctuation that
// ends the sentence around it is cut: a closing ')' or ']' stays when it
// closes a bracket the URL opened (an IPv6 host "[::1]", a value already
// redacted to Mark, a wiki path "Foo_(bar)"), so that a text redacted
// twice reads as it did once.
func trimURL(u string) int {
	open := map[byte]int{')': strings.Count(u, "("), ']': strings.Count(u, "[")}
	closed := map[byte]int{')': strings.Count(u, ")"), ']': strings.Count(u, "]")}
	end := len(u)
	for end > 0 && strings.IndexByte(trailing, u[end-1]) >= 0 {
		c := u[end-1]
		if (c == ')' || c == ']') && open[c] >= closed[c] {
			break
		}
		closed[c]--
		end--
	}
	return end
}

// Text returns s with every URL in it redacted as URL does (a URL is a
// scheme, "://" and the characters up to a space, quote or backslash,
// without trailing punctuation), and with the value of every other
// "name=value" pair whose name CredentialParam matches replaced too, so
// that a query string echoed without its URL ("query: key=…") is hidden.
// It is what an error from an SDK goes through before ragscope shows it:
// net/http writes `Post "https://host/?key=…": dial tcp …`.
func Text(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(s, "=") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			break
		}
		j += i
		start := j
		for start > last && (isLetter(s[start-1]) || isDigit(s[start-1]) || strings.IndexByte("+-.", s[start-1]) >= 0) {
			start--
		}
		for start < j && !isLetter(s[start]) {
			start++
		}
		end := j + 3
		for end < len(s) && !endsURL(s[end]) {
			end++
		}
		end = start + max(trimURL(s[start:end]), j+3-start)
		if start == j {
			// "://" without a scheme: not a URL.
			i = j + 3
			continue
		}
		b.WriteString(pairs(s[last:start]))
		b.WriteString(URL(s[start:end]))
		last, i = end, end
	}
	b.WriteString(pairs(s[last:]))
	return b.String()
}

// pairs redacts "name=value" pairs outside URLs whose name is a credential:
// the name is the run of name characters before '=', the value runs to the
// next space, quote, '&', ';', ',' or backslash.
func pairs(s string) string { return redactPairs(s, text) }

// syntax is how "name=value" pairs are written where redactPairs looks
// for them.
type syntax int

const (
	// query is a URL's query or fragment: "a=1&key=x;sig=y". A pair's
	// name is all of its part before the first '=', and its value the
	// rest of the part, '=' included.
	query syntax = iota
	// text is free text: "query: key=x, next". A name is the run of name
	// characters before any '=', and a value ends at what ends a URL or
	// at '&', ';' or ','.
	text
)

// inName reports whether c may stand in a name.
func (y syntax) inName(c byte) bool {
	if y == query {
		return c != '&' && c != ';'
	}
	return isNameChar(c)
}

// endsValue reports whether c ends a value.
func (y syntax) endsValue(c byte) bool {
	if y == query {
		return c == '&' || c == ';'
	}
	return endsURL(c) || c == '&' || c == ';' || c == ','
}

// redactPairs writes s with the value of every "name=value" pair written
// in syntax y whose name is a credential replaced by Mark; an empty value
// is kept. In a query the first '=' of a part starts its value, so the
// scan goes on after the value; in text a non-credential pair's value may
// hold another pair ("x=key=secret"), so the scan goes on after its '='.
func redactPairs(s string, y syntax) string {
	if !strings.Contains(s, "=") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		n := i
		for n > 0 && y.inName(s[n-1]) {
			n--
		}
		// The name first: scanning every value would be quadratic in
		// "a=a=a=…".
		credential := n < i && CredentialParam(s[n:i])
		if !credential && y == text {
			continue
		}
		v := i + 1
		for v < len(s) && !y.endsValue(s[v]) {
			v++
		}
		if credential && v > i+1 {
			b.WriteString(s[last : i+1])
			b.WriteString(Mark)
			last = v
		}
		i = v - 1
	}
	b.WriteString(s[last:])
	return b.String()
}

func isNameChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '%'
}

// Values returns the credentials written in raw, the URL of a setting:
// its user information (user name and password) and the values of its
// credential parameters, each as written and percent-decoded, without
// duplicates or empty strings. A caller that knows the URL hides these
// wherever they appear, as it hides an API key.
func Values(raw string) []string {
	var out []string
	add := func(v string) {
		if v == "" || v == Mark {
			return
		}
		for _, s := range []string{v, unescape(v)} {
			if s != "" && !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	_, userinfo, hasUser, _, tail := split(raw)
	if hasUser {
		user, pw, _ := strings.Cut(userinfo, ":")
		add(user)
		add(pw)
	}
	path, frag, _ := strings.Cut(tail, "#")
	_, query, _ := strings.Cut(path, "?")
	for _, q := range []string{query, frag} {
		for _, p := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' }) {
			if name, value, ok := strings.Cut(p, "="); ok && CredentialParam(name) {
				add(value)
			}
		}
	}
	return out
}

func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
