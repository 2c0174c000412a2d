package qdrant

import (
	"errors"
	"strings"
	"testing"

	"ragscope/retrieval"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in       string
		want     Endpoint
		noteLike string
	}{
		{"https://xyz.eu-central.aws.cloud.qdrant.io:6333", Endpoint{"xyz.eu-central.aws.cloud.qdrant.io", 6334, true}, "REST port 6333 mapped to gRPC port 6334"},
		{"https://xyz.cloud.qdrant.io", Endpoint{"xyz.cloud.qdrant.io", 6334, true}, "no port"},
		{"https://qdrant.example.org:443/", Endpoint{"qdrant.example.org", 443, true}, ""},
		{"xyz.cloud.qdrant.io:6334", Endpoint{"xyz.cloud.qdrant.io", 6334, true}, "Qdrant Cloud host: using TLS"},
		{"qdrant.internal:6334", Endpoint{"qdrant.internal", 6334, false}, ""},
		{"http://localhost:6333", Endpoint{"localhost", 6334, false}, "REST port 6333"},
		{"localhost", Endpoint{"localhost", 6334, false}, ""},
		{"  http://127.0.0.1:7000  ", Endpoint{"127.0.0.1", 7000, false}, ""},
		{"http://[::1]:6333", Endpoint{"::1", 6334, false}, "REST port"},
		{"http://localhost:6333/collections", Endpoint{"localhost", 6334, false}, "path /collections"},
	} {
		got, notes, err := ParseURL(tc.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseURL(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		joined := strings.Join(notes, "; ")
		if tc.noteLike != "" && !strings.Contains(joined, tc.noteLike) {
			t.Errorf("ParseURL(%q) notes %q, want one like %q", tc.in, joined, tc.noteLike)
		}
		if tc.noteLike == "" && strings.Contains(joined, "mapped") {
			t.Errorf("ParseURL(%q) notes %q: nothing was mapped", tc.in, joined)
		}
	}
	if got, _, _ := ParseURL("http://[::1]:6334"); got.Addr() != "[::1]:6334" {
		t.Errorf("Addr = %q", got.Addr())
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, in := range []string{"", "ftp://host", "http://", "http://host:99999", "http://user:hunter2@host:abc"} {
		_, _, err := ParseURL(in)
		if !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("ParseURL(%q) err = %v, want ErrConfig", in, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseURL(%q) leaks the password: %v", in, err)
		}
	}
}
