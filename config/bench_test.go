package config

import "testing"

// BenchmarkLoad measures resolving the configuration from a ragscope.toml,
// a .env and the environment through the settings table (done once per run).
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	if err := writeFile(dir, "ragscope.toml", "backend = \"auto\"\n[qdrant]\nurl = \"http://localhost:6333\"\ncollection = \"book\"\n[retrieval]\ntop_k = 8\ntimeout = \"10s\"\n[site]\nslug_style = \"simple\"\n[mapping]\ntext = [\"body\"]\n"); err != nil {
		b.Fatal(err)
	}
	if err := writeFile(dir, ".env", "COHERE_API_KEY=\"k\"\nexport QDRANT_API_KEY=q # comment\n"); err != nil {
		b.Fatal(err)
	}
	env := envOf(map[string]string{"RAGSCOPE_TOP_K": "9"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(LoadOptions{Providers: testProviders, Dir: dir, LookupEnv: env}); err != nil {
			b.Fatal(err)
		}
	}
}
