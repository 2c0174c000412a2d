package config

import "testing"

// Lookup finds every setting by its persistent or command flag, nothing
// for an unknown or empty name, and allocates nothing: --help looks up
// each of its flags.
func TestLookup(t *testing.T) {
	n := 0
	for _, s := range testProviders.Settings() {
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

// Settings returns a copy of one table built once (one allocation per
// call without providers), and a caller that reorders or overwrites its copy changes no
// other caller's.
func TestSettingsIsACopyOfOneTable(t *testing.T) {
	a := testProviders.Settings()
	name := a[0].Name
	a[0] = Setting{Name: "changed"}
	if b := testProviders.Settings(); b[0].Name != name {
		t.Errorf("a caller's change reached the table: %q", b[0].Name)
	}
	// The settings that do not depend on the providers are built once.
	if allocs := testing.AllocsPerRun(20, func() { _ = ProviderTable(nil).Settings() }); allocs > 1 {
		t.Errorf("Settings without providers allocates %v times per call; want 1", allocs)
	}
}
