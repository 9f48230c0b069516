package capsule

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeKey is n characters that look like a random key (digits, lower- and
// upper-case letters), made here so that no file of the repository holds
// anything a secret scanner takes for a live credential.
func fakeKey(n int, seed uint32) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = alphabet[(seed>>24)%uint32(len(alphabet))]
	}
	// The first three are one of each class, so mixedClasses holds.
	copy(b, "a7Q")
	return string(b)
}

// The fake credentials of the tests, one of each kind; the AWS pair is the
// example in AWS's own documentation.
var (
	fakeAnthropic = "sk-ant-api03-" + fakeKey(60, 1) + "-" + fakeKey(20, 2)
	fakeOpenAI    = "sk-proj-" + fakeKey(48, 3)
	fakeOpenAIOld = "sk-" + fakeKey(48, 4)
	fakeGitHub    = "ghp_" + fakeKey(36, 5)
	fakeGitHubPAT = "github_pat_11A" + fakeKey(20, 6) + "_" + fakeKey(59, 7)
	fakeAWSKeyID  = "AKIAIOSFODNN7EXAMPLE"
	fakeAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	fakeGoogle    = "AIza" + fakeKey(35, 8)
	fakeSlack     = "xoxb-2048163-" + fakeKey(24, 9)
	fakeStripe    = "sk_live_" + fakeKey(24, 10)
	fakeStripeRK  = "rk_live_" + fakeKey(24, 11)
	fakeJWT       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ." + fakeKey(43, 12)
	fakeRandom    = fakeKey(40, 13)
	fakePEMBody   = fakeKey(64, 14) + "\n" + fakeKey(64, 15) + "\n" + fakeKey(20, 16) + "=="
	fakePEM       = "-----BEGIN RSA PRIVATE KEY-----\n" + fakePEMBody + "\n-----END RSA PRIVATE KEY-----"
)

func m(k SecretKind) string { return MarkOf(k) }

// Each kind of credential is replaced by its mark, in place, and counted;
// the text around it stays.
func TestRedactEachKind(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		kinds          []SecretKind
	}{
		{"anthropic", "my key is " + fakeAnthropic + ", keep it", "my key is " + m(SecretAnthropic) + ", keep it", []SecretKind{SecretAnthropic}},
		{"openai project", "OpenAI: " + fakeOpenAI, "OpenAI: " + m(SecretOpenAI), []SecretKind{SecretOpenAI}},
		{"openai legacy", "(" + fakeOpenAIOld + ")", "(" + m(SecretOpenAI) + ")", []SecretKind{SecretOpenAI}},
		{"github classic", "token " + fakeGitHub + ".", "token " + m(SecretGitHub) + ".", []SecretKind{SecretGitHub}},
		{"github others", "gho_" + fakeKey(36, 20) + " ghu_" + fakeKey(36, 21) + " ghs_" + fakeKey(36, 22) + " ghr_" + fakeKey(36, 23),
			strings.Repeat(m(SecretGitHub)+" ", 3) + m(SecretGitHub), []SecretKind{SecretGitHub, SecretGitHub, SecretGitHub, SecretGitHub}},
		{"github fine-grained", "use " + fakeGitHubPAT, "use " + m(SecretGitHub), []SecretKind{SecretGitHub}},
		{"aws key id", "id " + fakeAWSKeyID + " and ASIA" + "Y34FZKBOKMUTVV7A", "id " + m(SecretAWSKeyID) + " and " + m(SecretAWSKeyID), []SecretKind{SecretAWSKeyID, SecretAWSKeyID}},
		{"aws secret assignment", "aws_secret_access_key = " + fakeAWSSecret, "aws_secret_access_key = " + m(SecretAWSSecret), []SecretKind{SecretAWSSecret}},
		{"google", "key=" + fakeGoogle + "&q=1", "key=" + m(SecretGoogle) + "&q=1", []SecretKind{SecretGoogle}},
		{"slack", "SLACK " + fakeSlack, "SLACK " + m(SecretSlack), []SecretKind{SecretSlack}},
		{"stripe", fakeStripe + " / " + fakeStripeRK, m(SecretStripe) + " / " + m(SecretStripe), []SecretKind{SecretStripe, SecretStripe}},
		{"private key block", "here:\n" + fakePEM + "\nthat is all", "here:\n" + m(SecretPrivateKey) + "\nthat is all", []SecretKind{SecretPrivateKey}},
		{"private key quoted", "> " + strings.ReplaceAll(fakePEM, "\n", "\n> ") + "\n> done", "> " + m(SecretPrivateKey) + "\n> done", []SecretKind{SecretPrivateKey}},
		{"private key in JSON", `{"private_key": "-----BEGIN PRIVATE KEY-----\n` + fakeKey(64, 30) + `\n-----END PRIVATE KEY-----\n", "x": 1}`,
			`{"private_key": "` + m(SecretPrivateKey) + `\n", "x": 1}`, []SecretKind{SecretPrivateKey}},
		{"private key cut before its end", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fakeKey(70, 31) + "\n" + fakeKey(70, 32) + "\n\nthe rest",
			m(SecretPrivateKey) + "\n\nthe rest", []SecretKind{SecretPrivateKey}},
		{".env lines", "DATABASE_PASSWORD=hunter22\nAPI_TOKEN=abc123def456\nDEBUG=1\n",
			"DATABASE_PASSWORD=" + m(SecretValue) + "\nAPI_TOKEN=" + m(SecretValue) + "\nDEBUG=1\n", []SecretKind{SecretValue, SecretValue}},
		{"export", "export GITHUB_TOKEN=" + fakeGitHub + "\nexport MY_APP_SECRET='s3cr3t value'",
			"export GITHUB_TOKEN=" + m(SecretGitHub) + "\nexport MY_APP_SECRET='" + m(SecretValue) + "'", []SecretKind{SecretGitHub, SecretValue}},
		{"yaml", "db:\n  admin_password: correct-horse\n  signing_key: \"Qm9vbXNob3QxMjM0\"\n",
			"db:\n  admin_password: " + m(SecretValue) + "\n  signing_key: \"" + m(SecretValue) + "\"\n", []SecretKind{SecretValue, SecretValue}},
		{"json", `{"api_key": "` + fakeKey(24, 33) + `", "name": "x"}`, `{"api_key": "` + m(SecretValue) + `", "name": "x"}`, []SecretKind{SecretValue}},
		{"toml", `client_secret = "p@ss w0rd \"quoted\""` + "\nport = 8080", `client_secret = "` + m(SecretValue) + `"` + "\nport = 8080", []SecretKind{SecretValue}},
		{"provider key assigned", "ANTHROPIC_API_KEY=" + fakeAnthropic, "ANTHROPIC_API_KEY=" + m(SecretAnthropic), []SecretKind{SecretAnthropic}},
		{"jwt", "cookie: session=" + fakeJWT + ";", "cookie: session=" + m(SecretJWT) + ";", []SecretKind{SecretJWT}},
		{"bearer", `curl -H "Authorization: Bearer ` + fakeKey(30, 34) + `" https://api.example.com`,
			`curl -H "Authorization: Bearer ` + m(SecretBearer) + `" https://api.example.com`, []SecretKind{SecretBearer}},
		{"url password", "DATABASE_URL=postgres://app:Sup3r-S3cret@db.internal:5432/app",
			"DATABASE_URL=postgres://app:" + m(SecretURLPassword) + "@db.internal:5432/app", []SecretKind{SecretURLPassword}},
		{"high entropy", "the webhook secret is " + fakeRandom + " (rotate it)", "the webhook secret is " + m(SecretEntropy) + " (rotate it)", []SecretKind{SecretEntropy}},
		{"bidi controls", "a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069j", "abcdefghij", nil},
		{"bidi inside a token", "ghp_" + fakeKey(18, 35) + "\u202e" + fakeKey(18, 36), m(SecretGitHub), []SecretKind{SecretGitHub}},
		// Characters shown as nothing split no credential, and go with it.
		{"zero-width space inside a token", "use ghp_" + fakeKey(18, 37) + "\u200b" + fakeKey(18, 38) + " now", "use " + m(SecretGitHub) + " now", []SecretKind{SecretGitHub}},
		{"each invisible character inside a key", "sk-ant-api03-" + fakeKey(6, 39) + "\u200c" + fakeKey(6, 40) + "\u200d" + fakeKey(6, 41) + "\u2060" + fakeKey(6, 42) +
			"\ufeff" + fakeKey(6, 43) + "\u00ad" + fakeKey(6, 44) + "\u200e\u200f\u061c\U000e0041" + fakeKey(6, 45), m(SecretAnthropic), []SecretKind{SecretAnthropic}},
		{"invisible characters in a prefix", "g\u200bh\u00adp_" + fakeKey(36, 46), m(SecretGitHub), []SecretKind{SecretGitHub}},
		{"invisible characters in a name", "DB_PA\u200bSS\u2060WORD=hunter22", "DB_PA\u200bSS\u2060WORD=" + m(SecretValue), []SecretKind{SecretValue}},
		{"invisible characters around a token stay", "\u200b" + fakeGitHub + "\u00ad and 👩\u200d💻 af\u200cter", "\u200b" + m(SecretGitHub) + "\u00ad and 👩\u200d💻 af\u200cter", []SecretKind{SecretGitHub}},
		{"invalid bytes joined around a dropped zero-width space", "gh\xe2\x80\u200b\x8bp_" + fakeKey(36, 47), m(SecretGitHub), []SecretKind{SecretGitHub}},
		// Kinds and spellings the table first missed.
		{"basic auth header", `curl -H "Authorization: Basic dXNlcjpodW50ZXIy" https://api.example.com`,
			`curl -H "Authorization: ` + "Basic " + m(SecretBasicAuth) + `" https://api.example.com`, []SecretKind{SecretBasicAuth}},
		{"basic auth in JSON headers", `{"headers": {"authorization": "basic ` + base64.StdEncoding.EncodeToString([]byte(fakeKey(12, 48))) + `"}}`,
			`{"headers": {"authorization": "basic ` + m(SecretBasicAuth) + `"}}`, []SecretKind{SecretBasicAuth}},
		{"basic credentials that decode to a user and a password", "then send Basic YWRtaW46czNjcjN0IQ== with it",
			"then send Basic " + m(SecretBasicAuth) + " with it", []SecretKind{SecretBasicAuth}},
		{"gitlab personal token", "GITLAB " + "glpat-" + fakeKey(20, 49) + ".", "GITLAB " + m(SecretGitLab) + ".", []SecretKind{SecretGitLab}},
		{"gitlab other tokens", "gldt-" + fakeKey(24, 50) + " glrt-" + fakeKey(24, 51) + " glptt-" + fakeKey(40, 52),
			m(SecretGitLab) + " " + m(SecretGitLab) + " " + m(SecretGitLab), []SecretKind{SecretGitLab, SecretGitLab, SecretGitLab}},
		{"gitlab token assigned", "GITLAB_TOKEN=glpat-" + fakeKey(20, 53), "GITLAB_TOKEN=" + m(SecretGitLab), []SecretKind{SecretGitLab}},
		{"password-like names", "DB_PASS=hunter22\nSMTP_PWD='tr0ub4dor'\nsecret: correcthorse\nTOKEN=abc123def456\nAPIKEY=k3y" + fakeKey(12, 54) + "\n",
			"DB_PASS=" + m(SecretValue) + "\nSMTP_PWD='" + m(SecretValue) + "'\nsecret: " + m(SecretValue) + "\nTOKEN=" + m(SecretValue) + "\nAPIKEY=" + m(SecretValue) + "\n",
			[]SecretKind{SecretValue, SecretValue, SecretValue, SecretValue, SecretValue}},
		{"pwd alone", "login with\npwd: hunter22\nuser: me", "login with\npwd: " + m(SecretValue) + "\nuser: me", []SecretKind{SecretValue}},
		{"camelCase names", `const dbPassword = "hunter22"; client = { clientSecret: "s3cr3t-sauce", apiKey: "` + fakeKey(24, 55) + `", dbPass: 'letmein99' }`,
			`const dbPassword = "` + m(SecretValue) + `"; client = { clientSecret: "` + m(SecretValue) + `", apiKey: "` + m(SecretValue) + `", dbPass: '` + m(SecretValue) + `' }`,
			[]SecretKind{SecretValue, SecretValue, SecretValue, SecretValue}},
		{"aws sdk config", `new S3Client({ credentials: { accessKeyId: "` + fakeAWSKeyID + `", secretAccessKey: "abc123secret" } })`,
			`new S3Client({ credentials: { accessKeyId: "` + m(SecretAWSKeyID) + `", secretAccessKey: "` + m(SecretAWSSecret) + `" } })`, []SecretKind{SecretAWSKeyID, SecretAWSSecret}},
		{"aws sts output", `"SecretAccessKey": "` + fakeAWSSecret + `",` + "\n" + `"SessionToken": "IQoJb3JpZ2luX2Vj` + fakeKey(40, 56) + `"`,
			`"SecretAccessKey": "` + m(SecretAWSSecret) + `",` + "\n" + `"SessionToken": "` + m(SecretValue) + `"`, []SecretKind{SecretAWSSecret, SecretValue}},
		{"aws secret key, any spelling", "AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret + "\naws-secret-access-key: " + fakeAWSSecret,
			"AWS_SECRET_ACCESS_KEY=" + m(SecretAWSSecret) + "\naws-secret-access-key: " + m(SecretAWSSecret), []SecretKind{SecretAWSSecret, SecretAWSSecret}},
		// An sk-ant- key is Anthropic's, whatever its length and however
		// many are found.
		{"anthropic key, short", "key sk-ant-api03-" + fakeKey(12, 57), "key " + m(SecretAnthropic), []SecretKind{SecretAnthropic}},
		{"anthropic keys, many", strings.Repeat("sk-ant-api03-"+fakeKey(40, 58)+" ", 20), strings.Repeat(m(SecretAnthropic)+" ", 20), slices.Repeat([]SecretKind{SecretAnthropic}, 20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, counts := Redact(tc.in)
			if got != tc.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			want := Redactions{}
			for _, k := range tc.kinds {
				want[k]++
			}
			if counts.String() != want.String() {
				t.Errorf("counted %s, want %s", counts, want)
			}
			if marked := CountMarks(got); marked.String() != want.String() {
				t.Errorf("the marks in the text count %s, want %s", marked, want)
			}
			if again, more := Redact(got); again != got || more.Total() != 0 {
				t.Errorf("redacting again changed %q to %q (%s)", got, again, more)
			}
		})
	}
}

// What is not a credential stays as it was: commit ids, UUIDs, checksums,
// paths, identifiers, code that reads a secret, settings, placeholders and
// ordinary words.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, in := range []string{
		"commit 4560467c8a1e3f9b2d7e6a5c4b3a29180f7e6d5c fixed it",
		"4560467C8A1E3F9B2D7E6A5C4B3A29180F7E6D5C",
		"session 019a2d7a-41c4-78b1-b7cc-a45d62a89cd5 and 0B5E7C1E-5D2A-4C8E-9A51-3F2D6C7B8A90",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"/work/wt/h6/internal/capsule/testdata/fuzz/FuzzRedact/seed1",
		"/home/me/src/github.com/charmbracelet/bubbles/textarea/textarea.go:1093",
		"func TestCapsuleFromClaudeLog_redacts_every_kind_2(t *testing.T) {",
		"TestHandoffPrintsTheRedactionCountAndPath2",
		"node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js",
		`apiKey := os.Getenv("ANTHROPIC_API_KEY")`,
		`if cfg.API_KEY == "" { return errNoKey }`,
		`API_KEY := os.Getenv("API_KEY")`,
		"SORT_KEY=created_at\nMAX_TOKEN=4096\nPRIMARY_KEY: id\n\"path-key\": \"^3.1.0\"",
		`"integrity": "sha512-c9YGBfdJrLcKiinRpXuDuibC+CRGqQpe9+ey/+TuuZ7ejHlVyEELbbvRkxHZN+Hf5XGecJD5i0kvP2opCseATA=="`,
		"PASSWORD=$DB_PASSWORD\nAPI_KEY=${API_KEY}\nSECRET_KEY=<your key here>\nGITHUB_TOKEN=***",
		"token_secret = config.token_secret\napi_key = process.env.API_KEY",
		"OPENAI_API_KEY=sk-...\nuse_password: true\nremember_password: false",
		"sk-learn is a library; desk-lamp-switch-controller-module; sk-this-is-a-long-hyphenated-name",
		"see https://github.com/acpmux/acpmux-tui/pull/123 or mail me@example.com at 12:30:45",
		"key: value\nmonkey: banana\n- item: the_key_to_it",
		"## Goal\n\n> Fix the TOML parser: nested tables lose their keys.\n",
		"ULID 01J8Z3K5V9Q4ABCDEFGHJKMNPQ, version v1.26.0-rc.1, base64 aGk=",
		"The quick brown fox jumps over the lazy dog, again and again and again.",
		`export const AIR_COMMAND_TITLE_KEY = "commandTitle";` + "\n" + `const OPTION_META_KEY = "_claude/askUserQuestionOption";`,
		"return { refresh_token: refreshToken, identity_token: identityTokenFile ? a : b }",
		"interface Login { password: string; client_secret: string }\ndef login(user: str, password: str):",
		"module.exports = { getPassword: function (service, account) {} }\nvar _key = keys[_i3];",
		`export GEMINI_API_KEY="YOUR_API_KEY"` + "\nexport ANTHROPIC_AUTH_TOKEN: PROVIDER_AUTH_TOKEN_PLACEHOLDER",
		"a URL of the form https://username:password@example.com",
		"https://github.com/microsoft/TypeScript/blob/49ad1a3917a0ea57f5ff248159256e12bb1cb705/src/lib/dom.generated.d.ts",
		"export interface BetaClearToolUses20250919EditResponse { view: BetaMemoryTool20250818ViewCommand }",
		"[redacted:github-token] stays a mark, and [redacted:nothing-known] is text",
		// Words such as "password", "token" and "basic" in prose, Go's
		// test report, the shell's folders, and keys that are a map's.
		"Reset your password from the login page; the token expires in an hour.",
		"Password: required\nSecret: yes\nToken: 4096",
		"--- PASS: TestRedactEachKind (0.00s)\n    --- PASS: TestRedactEachKind/anthropic (0.00s)\nPASS\nok  \tgithub.com/acpmux/acpmux-tui/internal/capsule\t2.208s",
		"PWD=/home/me/src/app\nOLDPWD=/home/me\npwd: ~/src/app",
		"bypass=enabled2\ncompass: north2\nPASS=passed12",
		`const cacheKey = "user-42-profile"; items.sort((a, b) => a.sortKey - b.sortKey); const storageKey = "app-v2-state";`,
		"a basic understanding of the system; Basic usage: run it twice; basic auth is configured elsewhere",
		"glpat-token-format-regression-test and glft-is-a-prefix-of-gitlab",
		"sk-ant-api03 is the prefix",
		"zero\u200bwidth and soft\u00adhyphen and 👨\u200d👩\u200d👧 family stay",
	} {
		got, counts := Redact(in)
		if got != in || counts.Total() != 0 {
			t.Errorf("Redact changed ordinary text (%s):\n in %q\ngot %q", counts, in, got)
		}
	}
}

// The summary a user reads names each kind, in one and in many.
func TestRedactionsString(t *testing.T) {
	for _, tc := range []struct {
		r    Redactions
		want string
	}{
		{Redactions{}, "no redactions"},
		{Redactions{SecretGitHub: 1}, "1 redaction: 1 GitHub token"},
		{Redactions{SecretValue: 2, SecretGitHub: 1}, "3 redactions: 1 GitHub token, 2 secret assignments"},
		{Redactions{SecretJWT: 2, SecretPrivateKey: 1, SecretURLPassword: 2}, "5 redactions: 1 private key, 2 JWTs, 2 passwords in URLs"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%v.String() = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// secretsLog writes a Claude Code session log in which the user pasted
// and the agent repeated one credential of every kind, from the template
// testdata/claude-secrets.jsonl.tmpl (the credentials are made by the test,
// so the repository holds none), under root as CLAUDE_CONFIG_DIR finds it
// for session id. It returns the credentials, by kind.
func secretsLog(t *testing.T, root, id string) map[SecretKind][]string {
	t.Helper()
	tmpl, err := os.ReadFile(filepath.Join("testdata", "claude-secrets.jsonl.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{
		"ANTHROPIC": fakeAnthropic, "GITHUB": fakeGitHub, "OPENAI": fakeOpenAI, "BEARER": fakeKey(30, 40),
		"STRIPE": fakeStripe, "STRIPE_RK": fakeStripeRK, "GOOGLE": fakeGoogle, "SLACK": fakeSlack,
		"AWS_ID": fakeAWSKeyID, "AWS_SECRET": fakeAWSSecret, "FINE_GRAINED": fakeGitHubPAT,
		"URL_PASSWORD": "Sup3r-S3cret", "PEM": fakePEM, "JWT": fakeJWT, "RANDOM": fakeRandom,
	}
	log := string(tmpl)
	for name, v := range secrets {
		quoted, _ := json.Marshal(v)
		log = strings.ReplaceAll(log, "{{"+name+"}}", string(quoted[1:len(quoted)-1]))
	}
	if strings.Contains(log, "{{") {
		t.Fatalf("a placeholder of the template is not filled:\n%s", log)
	}
	proj := filepath.Join(root, "projects", "-src-app")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, id+".jsonl"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[SecretKind][]string{
		SecretAnthropic:   {fakeAnthropic},
		SecretGitHub:      {fakeGitHub, fakeGitHubPAT},
		SecretOpenAI:      {fakeOpenAI},
		SecretBearer:      {secrets["BEARER"]},
		SecretStripe:      {fakeStripe, fakeStripeRK},
		SecretGoogle:      {fakeGoogle},
		SecretSlack:       {fakeSlack},
		SecretAWSKeyID:    {fakeAWSKeyID},
		SecretAWSSecret:   {fakeAWSSecret},
		SecretURLPassword: {"Sup3r-S3cret"},
		SecretPrivateKey:  {fakePEMBody[:64], fakePEMBody[65:129]},
		SecretJWT:         {fakeJWT, fakeJWT[strings.LastIndexByte(fakeJWT, '.')+1:]},
		SecretEntropy:     {fakeRandom},
		SecretValue:       {"hunter22"},
	}
}

// A handoff's capsule built from a Claude Code session log that holds one
// credential of every kind, and stored with the new chat, holds none of
// them: each is marked where it stood, and the marks count each kind. What
// is not a credential (a commit id, a run's UUID, a setting, the files)
// stays, and the bidirectional controls are gone.
func TestCapsuleFromSessionLogHoldsNoSecret(t *testing.T) {
	root := t.TempDir()
	claudeDir := filepath.Join(root, "claude")
	const session = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"
	secrets := secretsLog(t, claudeDir, session)

	store, err := sessions.OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	parent, err := store.Create(sessions.NewChat{Name: "deploy", Harness: "claude", AgentSessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	table, err := harness.NewTable(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := table.Get("claude")
	p := Parent{Meta: parent, Spec: spec, Env: []string{"CLAUDE_CONFIG_DIR=" + claudeDir}}
	text := ForDerivation(p, sessions.OriginHandoff, "codex", "", false)
	wantClean(t, text)
	wantIn(t, text, "from Claude Code's session log", "4560467c8a1e3f9b2d7e6a5c4b3a29180f7e6d5c",
		"run 019a2d7a-41c4-78b1-b7cc-a45d62a89cd5 is green", "SORT_KEY=created_at", "reversed text",
		"> Deploy the app. My Anthropic key is "+m(SecretAnthropic)+" and the GitHub token is "+m(SecretGitHub),
		"OPENAI_API_KEY="+m(SecretOpenAI), "Authorization: Bearer "+m(SecretBearer),
		"> DATABASE_PASSWORD="+m(SecretValue)+"\n", "aws_secret_access_key = "+m(SecretAWSSecret),
		"postgres://app:"+m(SecretURLPassword)+"@db.internal", "> "+m(SecretPrivateKey)+"\n")

	child, err := store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginHandoff, Harness: "codex", Capsule: text})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(store.HandoffPath(child.ID))
	if err != nil {
		t.Fatal(err)
	}
	stored := string(data)
	if stored != text {
		t.Errorf("the stored capsule is not the capsule built:\n%s", stored)
	}
	for kind, values := range secrets {
		for _, v := range values {
			if strings.Contains(stored, v) {
				t.Errorf("the stored capsule holds the %s %q:\n%s", kind, v, stored)
			}
		}
	}
	if strings.ContainsAny(stored, "\u202e\u202c") {
		t.Errorf("the stored capsule holds a bidirectional control:\n%s", stored)
	}
	got := CountMarks(stored)
	want := Redactions{}
	for kind, values := range secrets {
		want[kind] = len(values)
	}
	// Two GitHub tokens and two Stripe keys were said, one of each other
	// kind (the private key's two lines and the JWT's parts are one each).
	want[SecretPrivateKey], want[SecretJWT] = 1, 1
	if got.String() != want.String() {
		t.Errorf("the stored capsule counts %s, want %s:\n%s", got, want, stored)
	}
}

// A credential where a section's budget cuts the text is redacted whole
// before the cut: no part of it is left to escape the detectors.
func TestCapsuleCutsNoSecretInTwo(t *testing.T) {
	filler := strings.Repeat("word ", answerBytes/5)
	goal := filler[:goalBytes-8] + fakeGitHub + " and more"
	answer := "start " + fakeAnthropic + filler[:answerBytes-20]
	conv := Conversation{Messages: []Message{
		{Role: RoleUser, Text: goal},
		{Role: RoleUser, Text: "and then?"},
		{Role: RoleAgent, Text: answer},
	}}
	c := Build(info, conv)
	wantClean(t, c)
	wantNotIn(t, c, "ghp_", fakeGitHub[4:12], "sk-ant-", fakeAnthropic[len(fakeAnthropic)-12:])
	wantIn(t, c, " […]\n", "> […] ")
}
