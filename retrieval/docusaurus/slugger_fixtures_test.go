package docusaurus

import "testing"

// githubSluggerFixtures are entries of github-slugger's test/fixtures.json
// (github-slugger 2.0.0, https://github.com/Flet/github-slugger, ISC),
// whose expected values were generated from GitHub's own rendering. The
// fixtures run through ONE slugger in order, so later entries carry the
// duplicate suffixes earlier ones caused ("-a-" is "-a--1" because " a "
// was "-a-").
var githubSluggerFixtures = []struct{ name, input, want string }{
	{"Basic usage", "alpha", "alpha"},
	{"Basic usage (again)", "alpha", "alpha-1"},
	{"Camelcase", "bravoCharlieDelta", "bravocharliedelta"},
	{"Prototypal injection: proto", "__proto__", "__proto__"},
	{"Prototypal injection: proto (again)", "__proto__", "__proto__-1"},
	{"Prototypal injection: has own", "hasOwnProperty", "hasownproperty"},
	{"Repetition (1)", "echo", "echo"},
	{"Repetition (2)", "echo", "echo-1"},
	{"Repetition (3)", "echo 1", "echo-1-1"},
	{"Repetition (4)", "echo-1", "echo-1-2"},
	{"Repetition (5)", "echo", "echo-2"},
	{"More repetition (1)", "foxtrot-1", "foxtrot-1"},
	{"More repetition (2)", "foxtrot", "foxtrot"},
	{"More repetition (3)", "foxtrot", "foxtrot-2"},
	{"Characters: dash", "heading with a - dash", "heading-with-a---dash"},
	{"Characters: underscore", "heading with an _ underscore", "heading-with-an-_-underscore"},
	{"Characters: dot", "heading with a period.txt", "heading-with-a-periodtxt"},
	{"Characters: dots, parents, brackets", "exchange.bind_headers(exchange, routing [, bindCallback])", "exchangebind_headersexchange-routing--bindcallback"},
	{"Characters: space", " ", "-"},
	{"Characters: initial space", " a", "-a"},
	{"Characters: final space", "a ", "a-"},
	{"Characters: initial and final spaces", " a ", "-a-"},
	{"Characters: initial and final dashes", "-a-", "-a--1"},
	{"Characters: apostrophe", "apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"},
	{"Some more duplicates (1)", "golf", "golf"},
	{"Some more duplicates (2)", "golf", "golf-1"},
	{"Some more duplicates (3)", "golf", "golf-2"},
	{"Non-ascii: ♥", "I ♥ unicode", "i--unicode"},
	{"Non-ascii: -", "dash-dash", "dash-dash"},
	{"Non-ascii: – (en)", "en–dash", "endash"},
	{"Non-ascii: – (em)", "em–dash", "emdash"},
	{"Non-ascii: 😄", "😄 unicode emoji", "-unicode-emoji"},
	{"Non-ascii: 😄-😄", "😄-😄 unicode emoji", "--unicode-emoji"},
	{"Non-ascii: 😄_😄", "😄_😄 unicode emoji", "_-unicode-emoji"},
	{"Non-ascii: 😄 -", "😄 - an emoji", "---an-emoji"},
	{"Non-ascii: :smile:", ":smile: - a gemoji", "smile---a-gemoji"},
	{"Non-ascii: Cyrillic (1)", "Привет", "привет"},
	{"Non-ascii: Cyrillic (2)", "Профили пользователей", "профили-пользователей"},
	{"Non-ascii: Cyrillic + Han", "Привет non-latin 你好", "привет-non-latin-你好"},
	{"Gemoji (1)", ":ok: No underscore", "ok-no-underscore"},
	{"Gemoji (2)", ":ok_hand: Single", "ok_hand-single"},
	{"Gemoji (3)", ":ok_hand::hatched_chick: Two in a row with no spaces", "ok_handhatched_chick-two-in-a-row-with-no-spaces"},
	{"Gemoji (4)", ":ok_hand: :hatched_chick: Two in a row", "ok_hand-hatched_chick-two-in-a-row"},
}

// Unicode general-category fixtures from the same file, each on a fresh
// slugger (they are long in the original; these are the short ones).
var githubSluggerCategoryFixtures = []struct{ name, input, want string }{
	{"Connector_Punctuation", "a_ ‿ ⁀ ⁔ ︳ ︴ ﹍ ﹎ ﹏ ＿b", "a_-‿-⁀-⁔-︳-︴-﹍-﹎-﹏-＿b"},
	{"Dash_Punctuation", "a- ֊ ־ ᐀ ᠆ ‐ ‑ ‒ – — ― ⸗ ⸚ ⸺ ⸻ ⹀ 〜 〰 ゠ ︱ ︲ ﹘ ﹣ －b", "a------------------------b"},
	{"Enclosing_Mark", "a҈ ҉ ᪾ ⃝ ⃞ ⃟ ⃠ ⃢ ⃣ ⃤ ꙰ ꙱ ꙲b", "a҈-҉-᪾-⃝-⃞-⃟-⃠-⃢-⃣-⃤-꙰-꙱-꙲b"},
	{"Final_Punctuation", "a» ’ ” › ⸃ ⸅ ⸊ ⸍ ⸝ ⸡b", "a---------b"},
	{"Initial_Punctuation", "a« ‘ ‛ “ ‟ ‹ ⸂ ⸄ ⸉ ⸌ ⸜ ⸠b", "a-----------b"},
	{"Line_Separator", "a\u2028b", "ab"},
	{"Paragraph_Separator", "a\u2029b", "ab"},
}

func TestGitHubSlugFixtures(t *testing.T) {
	s := NewSlugger(SlugGitHub)
	for _, f := range githubSluggerFixtures {
		if got := s.Slug(f.input); got != f.want {
			t.Errorf("%s: slug(%q) = %q, want %q", f.name, f.input, got, f.want)
		}
	}
	for _, f := range githubSluggerCategoryFixtures {
		if got := NewSlugger(SlugGitHub).Slug(f.input); got != f.want {
			t.Errorf("%s: slug(%q) = %q, want %q", f.name, f.input, got, f.want)
		}
	}
}

// The README of github-slugger.
func TestGitHubSlugReadme(t *testing.T) {
	s := NewSlugger(SlugGitHub)
	for _, tt := range []struct{ in, want string }{
		{"foo", "foo"}, {"foo", "foo-1"}, {"bar", "bar"}, {"foo", "foo-2"},
		{"Привет non-latin 你好", "привет-non-latin-你好"}, {"😄 emoji", "-emoji"},
	} {
		if got := s.Slug(tt.in); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
