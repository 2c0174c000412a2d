package config

import "testing"

// Lookup finds every setting by its persistent or command flag, nothing
// for an unknown or empty name, and allocates nothing: --help looks up
// each of its flags.
func TestLookup(t *testing.T) {
	n := 0
	for _, s := range Settings() {
		for _, flag := range []string{s.Flag, s.CommandFlag} {
			if flag == "" {
				continue
			}
			n++
			got, ok := Lookup(flag)
			if !ok || got.Name != s.Name {
				t.Errorf("Lookup(%q) = %q, %v; want %q", flag, got.Name, ok, s.Name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d flags in Settings", n)
	}
	for _, flag := range []string{"", "no-such-flag", "qdrant_api_key"} {
		if got, ok := Lookup(flag); ok {
			t.Errorf("Lookup(%q) found %q", flag, got.Name)
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { Lookup("top-k") }); allocs != 0 {
		t.Errorf("Lookup allocates %v times per call; want 0", allocs)
	}
}
