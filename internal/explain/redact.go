package explain

import (
	"regexp"
	"strings"
)

// Redact is argv as documents keep it, with every credential replaced by
// REDACTED so that no secret is printed or stored: the value of a flag
// named for one (--token X, --password=X, --secret-access-key X,
// --session-token X, …), curl's -u/--user user:SECRET (the user is kept),
// a header given as "Authorization: …" or "x-amz-security-token: …", a
// URL's user information (http://user:SECRET@host), NAME=value pairs
// (AccountKey=X, ?sig=X) and AWS access key ids (AKIA…, ASIA…).
// An argument that is a script (sh -c '…') is split as a shell would and
// each secret found in its words is replaced where it stands.
func Redact(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if i > 0 {
			if r, ok := flagValue(argv[i-1], a); ok {
				out[i] = r
				continue
			}
		}
		out[i] = redactArg(a)
		if words := shellWords(a); len(words) > 1 {
			out[i] = redactScript(out[i], words)
		}
	}
	return out
}

// redactScript replaces in script every secret that Redact finds among
// its words: the part of a word that Redact replaced.
func redactScript(script string, words []string) string {
	for i, r := range Redact(words) {
		w := words[i]
		if r == w {
			continue
		}
		p := 0
		for p < len(w) && p < len(r) && w[p] == r[p] {
			p++
		}
		q := 0
		for q < len(w)-p && q < len(r)-p && w[len(w)-1-q] == r[len(r)-1-q] {
			q++
		}
		if secret := w[p : len(w)-q]; len(secret) > 0 {
			script = strings.ReplaceAll(script, secret, "REDACTED")
		}
	}
	return script
}

// shellWords splits s into words as a POSIX shell would, quotes and
// backslashes removed; enough to find flags and their values in a script.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '\'':
			w.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case quote == '"':
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// secretFlag matches the name (without dashes) of a flag whose value is a
// credential; userFlag one whose value is curl's user:password.
var (
	secretFlag = regexp.MustCompile(`(?i)(secret|passw(or)?d|^pass$|token|credential|access[_-]?key|account[_-]?key|api[_-]?key|` +
		`private[_-]?key|session[_-]?key|signature|^sig$|^auth$|authorization|^sas$)`)
	userFlag   = regexp.MustCompile(`^(-u|-U|--user|--proxy-user)$`)
	headerFlag = regexp.MustCompile(`^(-H|--header|--proxy-header)$`)
)

// flagValue redacts arg when the flag before it takes a credential.
func flagValue(flag, arg string) (string, bool) {
	switch {
	case !strings.HasPrefix(flag, "-") || strings.Contains(flag, "="):
		return "", false
	case userFlag.MatchString(flag):
		return redactUser(arg), true
	case headerFlag.MatchString(flag):
		return redactHeader(arg), true
	case secretFlag.MatchString(strings.TrimLeft(flag, "-")):
		return "REDACTED", true
	}
	return "", false
}

// redactUser keeps the user of user:password.
func redactUser(v string) string {
	if u, _, ok := strings.Cut(v, ":"); ok {
		return u + ":REDACTED"
	}
	return v
}

// secretHeader is a header whose value is a credential.
var secretHeader = regexp.MustCompile(`(?i)^\s*((?:proxy-)?authorization|x-amz-security-token|x-goog-[a-z-]*(?:key|token)|` +
	`x-ms-[a-z-]*(?:key|token)|x-api-key|api-key|cookie|[a-z-]*token|[a-z-]*secret[a-z-]*)\s*:`)

func redactHeader(v string) string {
	if m := secretHeader.FindStringIndex(v); m != nil {
		return v[:m[1]] + " REDACTED"
	}
	return redactArg(v)
}

var (
	// attached forms: --flag=value, -uUSER:PASS, -H'Authorization: …'.
	flagEq = regexp.MustCompile(`^(--?[A-Za-z0-9_.-]+)=(.*)$`)
	// userinfo of a URL anywhere in an argument.
	userinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)([^/@\s:]*)(:[^/@\s]*)?@`)
	// AWS access key ids: long-term (AKIA) and temporary (ASIA).
	awsKeyID = regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`)
	// NAME=value and name:value pairs (AccountKey=…;, ?sig=…&, token:…).
	secretValue = regexp.MustCompile(`(?i)((?:secret|password|passwd|token|credential|access[_-]?key|account[_-]?key|api[_-]?key|signature|sig|auth)[a-z_-]*[=:])[^\s;&'"]+`)
)

// redactArg redacts the credentials inside one argument.
func redactArg(a string) string {
	if m := flagEq.FindStringSubmatch(a); m != nil {
		if r, ok := flagValue(m[1], m[2]); ok {
			return m[1] + "=" + r
		}
	}
	switch {
	case strings.HasPrefix(a, "-u") && len(a) > 2 && !strings.HasPrefix(a, "--"):
		return "-u" + redactUser(a[2:])
	case strings.HasPrefix(a, "-H") && len(a) > 2 && !strings.HasPrefix(a, "--"):
		return "-H" + redactHeader(a[2:])
	}
	if secretHeader.MatchString(a) && !strings.Contains(a, "://") {
		return redactHeader(a)
	}
	a = userinfo.ReplaceAllStringFunc(a, func(m string) string {
		sm := userinfo.FindStringSubmatch(m)
		if sm[3] == "" {
			return sm[1] + "REDACTED@"
		}
		return sm[1] + sm[2] + ":REDACTED@"
	})
	a = awsKeyID.ReplaceAllString(a, "REDACTED")
	return secretValue.ReplaceAllString(a, "${1}REDACTED")
}
