package srcpos

import "testing"

func TestPrefix(t *testing.T) {
	for _, c := range []struct {
		name string
		line int
		want string
	}{
		{"golden.yaml", 12, "golden.yaml:12: "},
		{"golden.yaml", 0, "golden.yaml: "},
		{"", 3, "3: "},
		{"", 0, ""},
	} {
		if got := Prefix(c.name, c.line); got != c.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.name, c.line, got, c.want)
		}
	}
}
