package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"https://api.cohere.com", "https://api.cohere.com"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://host/?key=SECRET", "http://host/?key=[redacted]"},
		{"http://host?key=SECRET", "http://host?key=[redacted]"},
		{"http://host/v1beta?KEY=SECRET&alt=json", "http://host/v1beta?KEY=[redacted]&alt=json"},
		{"https://h/p?a=1&api_key=S1&apikey=S2&Api-Key=S3&token=S4&access_token=S5&sig=S6&signature=S7&password=S8&secret=S9&auth=S10&x-goog-api-key=S11&b=2",
			"https://h/p?a=1&api_key=[redacted]&apikey=[redacted]&Api-Key=[redacted]&token=[redacted]&access_token=[redacted]&sig=[redacted]&signature=[redacted]&password=[redacted]&secret=[redacted]&auth=[redacted]&x-goog-api-key=[redacted]&b=2"},
		// Encoded names are decoded before the rule applies.
		{"https://h/?%6Bey=SECRET&api%5Fkey=S2&x%2Dgoog%2Dapi%2Dkey=S3", "https://h/?%6Bey=[redacted]&api%5Fkey=[redacted]&x%2Dgoog%2Dapi%2Dkey=[redacted]"},
		// Encoded values are hidden whole.
		{"https://h/?key=SE%26CR%3DET&q=ok", "https://h/?key=[redacted]&q=ok"},
		// Semicolon separators, empty values and parameters without '='.
		{"https://h/?flag;token=S;key=&x", "https://h/?flag;token=[redacted];key=&x"},
		// Fragments: the implicit-flow access token.
		{"https://h/cb#access_token=SECRET&state=abc", "https://h/cb#access_token=[redacted]&state=abc"},
		{"https://h/docs/page#heading-key", "https://h/docs/page#heading-key"},
		{"https://h/?q=1#sig=S", "https://h/?q=1#sig=[redacted]"},
		// User information, with and without a password.
		{"http://user:SECRET@host:6333", "http://[redacted]@host:6333"},
		{"https://TOKEN@host/v1", "https://[redacted]@host/v1"},
		{"http://u:p%40ss@host/x@y", "http://[redacted]@host/x@y"},
		{"http://u:SECRET@::::", "http://[redacted]@::::"},
		// An unescaped '?' or '#' in a password does not end the user
		// information early.
		{"http://u:SE?CRET@host/x", "http://[redacted]@host/x"},
		{"http://u:SE#CRET@host", "http://[redacted]@host"},
		// An '@' in the path or query is no user information.
		{"https://h/users/@me?q=a@b", "https://h/users/@me?q=a@b"},
		// Without a scheme (QDRANT_URL's host:port form) and scheme-relative.
		{"user:SECRET@host:6334", "[redacted]@host:6334"},
		{"host:6334?api-key=SECRET", "host:6334?api-key=[redacted]"},
		{"//u:SECRET@host/?token=T", "//[redacted]@host/?token=[redacted]"},
		// Both at once.
		{"https://u:P@h:8080/v1/?key=K&sig=S#token=T", "https://[redacted]@h:8080/v1/?key=[redacted]&sig=[redacted]#token=[redacted]"},
		// Names that carry no credential are kept.
		{"https://h/?keyword=x&monkeys=y&tokens=z", "https://h/?keyword=x&monkeys=y&tokens=z"},
	} {
		got := URL(c.in)
		if got != c.want {
			t.Errorf("URL(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := URL(got); again != got {
			t.Errorf("URL is not idempotent on %q: %q", got, again)
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"no URL here", "no URL here"},
		// net/http's *url.Error as the SDKs wrap it.
		{`Post "http://host/v1beta/models/m:embed?key=SECRET": dial tcp 127.0.0.1:1: connect: connection refused`,
			`Post "http://host/v1beta/models/m:embed?key=[redacted]": dial tcp 127.0.0.1:1: connect: connection refused`},
		// openai-go's API error: method, quoted URL, status.
		{`POST "http://u:PW@host/v1/embeddings?api-key=SECRET": 401 Unauthorized`, `POST "http://[redacted]@host/v1/embeddings?api-key=[redacted]": 401 Unauthorized`},
		// Trailing punctuation ends the sentence, not the URL.
		{"Cannot reach Gemini at http://host/?key=SECRET: connection refused.", "Cannot reach Gemini at http://host/?key=[redacted]: connection refused."},
		{"see (https://h/?token=SECRET).", "see (https://h/?token=[redacted])."},
		// Several URLs, one without credentials.
		{"a https://x/?sig=S1 b https://y/ok c http://z/?a=1&password=S2",
			"a https://x/?sig=[redacted] b https://y/ok c http://z/?a=1&password=[redacted]"},
		// URLs inside escaped JSON, as in a log line.
		{`resolved="{\"gemini_base_url\":\"http://u:P@h/?key=SECRET\"}"`, `resolved="{\"gemini_base_url\":\"http://[redacted]@h/?key=[redacted]\"}"`},
		// A JSON-escaped '&' before the credential.
		{`"http://h/?x=1\u0026key=SECRET"`, `"http://h/?x=1\u0026key=[redacted]"`},
		// A query string echoed without its URL.
		{"query: key=SECRET&x=1", "query: key=[redacted]&x=1"},
		{"headers: X-Goog-Api-Key=SECRET, Accept=json", "headers: X-Goog-Api-Key=[redacted], Accept=json"},
		// Ordinary name=value text is kept.
		{"top_k=5 threshold=0.2", "top_k=5 threshold=0.2"},
		// "://" without a scheme is not a URL.
		{"odd ://u:p@h text", "odd ://u:p@h text"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestCredentialParam(t *testing.T) {
	for _, name := range []string{"key", "KEY", "api_key", "apikey", "api-key", "x-goog-api-key", "token", "access_token", "X-Amz-Security-Token",
		"sig", "signature", "X-Amz-Signature", "password", "passwd", "pwd", "secret", "client_secret", "auth", "authorization", "X-Amz-Credential", "%6Bey"} {
		if !CredentialParam(name) {
			t.Errorf("%q is not a credential", name)
		}
	}
	for _, name := range []string{"q", "alt", "model", "keyword", "tokens", "page", "state", "x"} {
		if CredentialParam(name) {
			t.Errorf("%q is a credential", name)
		}
	}
}

func TestValues(t *testing.T) {
	got := Values("https://usr:p%40ss@h/?key=K1&x=1&token=T%2B1#sig=S")
	want := []string{"usr", "p%40ss", "p@ss", "K1", "T%2B1", "T+1", "S"}
	if !slices.Equal(got, want) {
		t.Errorf("Values = %q, want %q", got, want)
	}
	if v := Values("https://api.cohere.com/v2?model=x"); len(v) != 0 {
		t.Errorf("Values of a URL without credentials = %q", v)
	}
}

func TestStrip(t *testing.T) {
	for _, c := range []struct {
		in, want string
		removed  bool
	}{
		{"https://me.github.io/book/docs/", "https://me.github.io/book/docs/", false},
		{"https://h/docs?lang=en", "https://h/docs?lang=en", false},
		{"https://u:P@h/docs/", "https://h/docs/", true},
		{"https://h/docs/?key=K", "https://h/docs/", true},
		{"https://h/docs/?lang=en&token=T&v=2", "https://h/docs/?lang=en&v=2", true},
		{"https://u@h/docs/?%73ig=S#access_token=T", "https://h/docs/", true},
		{"https://h/docs/#intro", "https://h/docs/#intro", false},
		{"https://u:p?w@h/docs/", "https://h/docs/", true},
	} {
		got, removed := Strip(c.in)
		if got != c.want || removed != c.removed {
			t.Errorf("Strip(%q) = %q, %v; want %q, %v", c.in, got, removed, c.want, c.removed)
		}
	}
}

// TestTextLargeInput: an untrusted body of many '=' or URLs is redacted in
// one pass (no quadratic rescans), and nothing of a planted key is left.
func TestTextLargeInput(t *testing.T) {
	body := strings.Repeat("a=", 1<<20) + strings.Repeat("http://h/?", 1<<16) + strings.Repeat("x:// ", 1<<16) + " token=SECRET"
	got := Text(body)
	if strings.Contains(got, "SECRET") || !strings.HasSuffix(got, "token=[redacted]") {
		t.Errorf("the key at the end of a large text survives: …%s", got[len(got)-40:])
	}
}

// TestTextRedactedURLStaysRedacted checks that a message holding an
// already redacted URL reads the same after Text, however often it passes
// through, wherever the credential parameter sits and however it is
// written; brackets the URL opens are its own, the sentence's are not.
func TestTextRedactedURLStaysRedacted(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"http://127.0.0.1:1/v1?key=SECRET", "http://127.0.0.1:1/v1?key=[redacted]"},
		{"https://h/v1?key=SECRET&alt=json", "https://h/v1?key=[redacted]&alt=json"},
		{"https://h/v1?alt=json&key=SECRET&x=1", "https://h/v1?alt=json&key=[redacted]&x=1"},
		{"https://h/v1?alt=json&key=SECRET", "https://h/v1?alt=json&key=[redacted]"},
		{"https://h/v1?%6Bey=SEC%20RET&alt=json", "https://h/v1?%6Bey=[redacted]&alt=json"},
		{"https://h/v1?api%5Fkey=SEC%2FRET", "https://h/v1?api%5Fkey=[redacted]"},
		{"http://[::1]:6333/v1?key=SECRET", "http://[::1]:6333/v1?key=[redacted]"},
	} {
		once := URL(tc.raw)
		if once != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.raw, once, tc.want)
		}
		for _, frame := range []string{"Cannot reach Gemini at %s: dial tcp", "(see %s).", "at %s]", "%s"} {
			msg := strings.ReplaceAll(frame, "%s", once)
			got := Text(msg)
			if got != msg {
				t.Errorf("Text(%q) = %q, want it unchanged", msg, got)
			}
			if again := Text(got); again != msg {
				t.Errorf("Text(Text(%q)) = %q, want it unchanged", msg, again)
			}
			raw := strings.ReplaceAll(frame, "%s", tc.raw)
			if got := Text(raw); got != msg {
				t.Errorf("Text(%q) = %q, want %q", raw, got, msg)
			}
		}
	}
}

// TestPairSyntaxes pins where the one pair scanner reads a query and free
// text differently: in a query a part's value runs to '&' or ';' (commas
// and later '=' included) and a non-credential part hides nothing inside
// its value; in text a value ends at a comma or a space, and a pair
// inside another pair's value is found.
func TestPairSyntaxes(t *testing.T) {
	for _, c := range []struct {
		y        syntax
		in, want string
	}{
		{query, "key=a,b&x=1", "key=[redacted]&x=1"},
		{query, "key=a=b;x=1", "key=[redacted];x=1"},
		{query, "redirect=key=SECRET&x=1", "redirect=key=SECRET&x=1"},
		{query, "a b[key]=v&api key=S", "a b[key]=v&api key=[redacted]"},
		{query, "=key=S&flag&key=", "=key=S&flag&key="},
		{text, "key=a,b next", "key=[redacted],b next"},
		{text, "x=key=SECRET done", "x=key=[redacted] done"},
		{text, "(token=S) 'sig=T';", "(token=[redacted] 'sig=[redacted]';"},
		{text, "key= empty, a=a=a", "key= empty, a=a=a"},
	} {
		if got := redactPairs(c.in, c.y); got != c.want {
			t.Errorf("redactPairs(%q, %d)\n got %q\nwant %q", c.in, c.y, got, c.want)
		}
	}
}
