package capsule

import (
	"strings"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
)

// This file holds the detector of secrets assigned to variables: which
// names say their value is a secret, and which values are one.

// assignRE finds a name, an optional closing quote (a JSON key), and "="
// or ":" with the blanks around them; the value is read by hand after it.
var assignRE = lazyre.New(`[A-Za-z_][A-Za-z0-9_.-]*["']?[ \t]*[=:][ \t]*`)

// findAssignments finds the values of variables whose names say they hold
// a secret (secretName): .env lines, `export X=…`, YAML `x_key: …`, JSON
// `"x_key": "…"`, TOML `x_key = "…"`, code `dbPassword = "…"`. The name
// stays; the value, without its quotes, is marked. A value that is a
// placeholder (`$X`, `${X}`, `<your key>`, `***`), code (`os.Getenv("X")`,
// `config.api_key`), a plain word or number under a _KEY or _TOKEN name
// (`SORT_KEY=name`, `MAX_TOKEN=4096`), a folder under a PWD name
// (`PWD=/src/app`, what a shell's environment says), or a mark already, is
// left alone. A word such as "password" in a sentence is no assignment.
func findAssignments(text string) []span {
	var spans []span
	covered := 0 // the end of the last value taken whole
	for _, loc := range assignRE().FindAllStringIndex(text, -1) {
		if loc[0] < covered {
			continue
		}
		head := text[loc[0]:loc[1]]
		sep := strings.IndexAny(head, "=:")
		name := strings.TrimRight(head[:sep], "\"' \t")
		after := loc[1]
		// Not "==", "=>", ":=", "::", nor a ":" glued to its value (a URL,
		// a time, a label).
		if after < len(text) && strings.IndexByte("=>:", text[after]) >= 0 {
			continue
		}
		if head[sep] == ':' && loc[1]-loc[0] == sep+1 && (after >= len(text) || text[after] != '"' && text[after] != '\'') {
			continue
		}
		rule := secretName(name)
		if rule.holds == holdsNoSecret {
			continue
		}
		start, end, ok := assignedValue(text, after)
		if !ok {
			covered = end // nothing in an overlong value is looked at again
			continue
		}
		value := text[start:end]
		if !secretLooking(value, rule) {
			continue
		}
		covered = end
		kind := SecretValue
		if k, whole := tokenKind(value); whole {
			kind = k
		} else if rule.aws {
			kind = SecretAWSSecret
		}
		spans = append(spans, span{start, end, kind})
	}
	return spans
}

// nameHolds is what a variable's name says of its value.
type nameHolds uint8

const (
	holdsNoSecret nameHolds = iota
	// holdsKey: a key or a token (X_KEY, X_TOKEN, apiKey); a value is
	// taken for one only when it looks like one, as settings and
	// constants use these names too (SORT_KEY=created_at).
	holdsKey
	// holdsPassword: a password or a secret (X_PASSWORD, X_SECRET,
	// DB_PASS, pwd); any value that is not a placeholder, a type or code
	// is one.
	holdsPassword
)

// nameRule is how a variable's name makes its value a secret.
type nameRule struct {
	holds nameHolds
	// aws: the name is AWS's secret access key (aws_secret_access_key,
	// SecretAccessKey).
	aws bool
	// folder: the name may be the shell's working folder (PWD), whose
	// value is a path, not a password.
	folder bool
}

// keyQualifiers are the words that, before "Key" in a camelCase name, say
// the key is a credential (apiKey, secretAccessKey, privateKey): in code,
// most camelCase keys are a map's or a cache's (sortKey, cacheKey), unlike
// the X_KEY of a .env file or a YAML setting.
var keyQualifiers = map[string]bool{
	"api": true, "secret": true, "access": true, "private": true, "signing": true, "sign": true,
	"encryption": true, "master": true, "auth": true, "client": true, "consumer": true, "app": true,
	"license": true, "subscription": true, "account": true, "hmac": true, "webhook": true, "session": true,
}

// joinedSecretNames are names written as one word that say a key
// (APIKEY, accesstoken).
var joinedSecretNames = map[string]bool{
	"apikey": true, "secretkey": true, "accesskey": true, "privatekey": true, "authtoken": true, "accesstoken": true,
}

// secretName says whether name (of a variable, a YAML or JSON key, a
// field) holds a secret, by its last word (words split at _ - . and at
// camelCase humps, any case):
//   - PASSWORD, PASSWD, PASSPHRASE (ending any name: DBPASSWORD), SECRET,
//     and PASS or PWD after another word (DB_PASS, smtpPwd), or PWD alone
//     (`pwd: …`): a password;
//   - TOKEN, and KEY after another word (API_KEY, x-api-key): a key; in a
//     camelCase name KEY counts after a word of keyQualifiers only;
//   - a bare PASS is no name of a secret: "--- PASS: TestX" is how Go's
//     tests report.
func secretName(name string) nameRule {
	lower := strings.ToLower(name)
	for _, s := range [...]string{"password", "passwd", "passphrase"} {
		if strings.HasSuffix(lower, s) {
			return nameRule{holds: holdsPassword}
		}
	}
	words, hump := nameWords(name)
	if len(words) == 0 {
		return nameRule{}
	}
	last := words[len(words)-1]
	before := ""
	if len(words) > 1 {
		before = words[len(words)-2]
	}
	switch {
	case last == "secret":
		return nameRule{holds: holdsPassword}
	case last == "pwd":
		return nameRule{holds: holdsPassword, folder: true}
	case last == "pass" && before != "":
		return nameRule{holds: holdsPassword}
	case last == "token", joinedSecretNames[last]:
		return nameRule{holds: holdsKey}
	case last == "key" && before != "" && (!hump || keyQualifiers[before]):
		aws := len(words) >= 3 && before == "access" && words[len(words)-3] == "secret"
		return nameRule{holds: holdsKey, aws: aws}
	}
	return nameRule{}
}

// maxNameWords bounds the words nameWords keeps: the last few decide.
const maxNameWords = 3

// nameWords splits name into its last words, lower case: at every byte
// that is not a letter or a digit, and at camelCase humps ("secretAccessKey",
// "APIKey": a lower-case letter or digit then an upper-case one, or an
// upper-case letter before one followed by a lower-case one). hump reports
// whether the last word began at a hump rather than after a separator.
func nameWords(name string) (words []string, hump bool) {
	end := len(name)
	for end > 0 && !isAlnum(name[end-1]) {
		end--
	}
	for end > 0 && len(words) < maxNameWords {
		start, atHump := end-1, false
		for start > 0 {
			c, p := name[start], name[start-1]
			if !isAlnum(p) {
				break
			}
			if isUpper(c) && (isLower(p) || isDigit(p)) {
				atHump = true
				break
			}
			if isUpper(c) && isUpper(p) && start+1 < end && isLower(name[start+1]) {
				atHump = true
				break
			}
			start--
		}
		if len(words) == 0 {
			hump = atHump
		}
		words = append([]string{strings.ToLower(name[start:end])}, words...)
		end = start
		for end > 0 && !isAlnum(name[end-1]) {
			end--
		}
	}
	return words, hump
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// maxValueBytes bounds an assigned value. A longer one is no password or
// key a person sets (a JWT or a random string that long is found by its
// own detector), and the bound keeps a text of many assignments linear.
const maxValueBytes = 1 << 10

// assignedValue bounds the value that starts at i: inside its quotes when
// quoted (to the end of the line when the closing quote is not on it),
// else up to a blank or one of `,;)}]"'`. It reports false for a value
// over maxValueBytes.
func assignedValue(text string, i int) (start, end int, ok bool) {
	if i >= len(text) {
		return i, i, true
	}
	limit := min(len(text), i+1+maxValueBytes+1)
	if q := text[i]; q == '"' || q == '\'' {
		j := i + 1
		for j < limit && text[j] != q && text[j] != '\n' {
			if text[j] == '\\' && q == '"' && j+1 < len(text) && text[j+1] != '\n' {
				j++
			}
			j++
		}
		return i + 1, min(j, len(text)), j-(i+1) <= maxValueBytes
	}
	j := i
	for j < limit && strings.IndexByte(" \t\r\n,;)}]\"'`", text[j]) < 0 {
		j++
	}
	return i, j, j-i <= maxValueBytes
}

// notSecretWords are values that say a setting is off or unset, or that
// are a type or a keyword (`password: string` in TypeScript, `password:
// str` in Python, `getPassword: function (…)` in JavaScript).
var notSecretWords = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "undefined": true,
	"yes": true, "no": true, "on": true, "off": true, "required": true, "optional": true,
	"string": true, "str": true, "number": true, "boolean": true, "bool": true, "any": true,
	"unknown": true, "object": true, "bytes": true, "int": true, "void": true, "never": true,
	"function": true, "async": true, "new": true, "await": true, "this": true, "self": true,
}

// codeValueRE is a dotted name (`config.api_key`, `process.env.TOKEN`):
// code that reads a secret, not the secret.
var codeValueRE = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)

// secretLooking reports whether a value assigned to a name of rule looks
// like a secret rather than a placeholder, code or a setting.
func secretLooking(v string, rule nameRule) bool {
	if len(v) < 4 {
		return false
	}
	if rule.folder && (v[0] == '/' || v[0] == '~') {
		return false
	}
	switch v[0] {
	case '$', '<', '{', '[', '(', '%', '@', '&', '*':
		return false
	}
	if len(v) <= 9 && notSecretWords[strings.ToLower(v)] || strings.Contains(v, markOpen) || placeholderWords[strings.ToLower(v)] {
		return false
	}
	if strings.ContainsAny(v, "([") || codeValueRE().MatchString(v) {
		return false
	}
	alnum := false
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			alnum = true
			break
		}
	}
	if !alnum || strings.Contains(v, "...") || strings.Contains(v, "…") {
		return false
	}
	if rule.holds == holdsPassword {
		return true
	}
	// Under a _KEY or _TOKEN name, a secret has letters and digits (or
	// is long and random); a word, a name, a constant, a number or a
	// version is a setting or code (SORT_KEY=created_at,
	// TITLE_KEY = "commandTitle", refresh_token: refreshToken,
	// MAX_TOKEN=4096, "path-key": "^3.1.0", API_KEY="YOUR_API_KEY").
	var letter, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	switch {
	case letter && digit:
		return true
	case !letter:
		return len(v) >= 12
	}
	return len(v) >= 16 && mixedCase(v) && wordShare(v) < 0.7
}

// mixedCase reports whether s has both lower- and upper-case letters.
func mixedCase(s string) bool {
	return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}
