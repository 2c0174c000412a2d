package qdrant

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	urlredact "ragscope/internal/redact"
	"ragscope/retrieval"
)

// Ports Qdrant listens on by default.
const (
	// RESTPort is Qdrant's HTTP API port; the Go client cannot use it.
	RESTPort = 6333
	// GRPCPort is Qdrant's gRPC port, which ragscope speaks.
	GRPCPort = 6334
)

// Endpoint is where ragscope connects: a gRPC host and port, with or
// without TLS.
type Endpoint struct {
	Host string
	Port int
	TLS  bool
}

// Addr returns host:port (IPv6 hosts in brackets).
func (e Endpoint) Addr() string { return net.JoinHostPort(e.Host, strconv.Itoa(e.Port)) }

// String returns the endpoint as a URL-like text for messages.
func (e Endpoint) String() string {
	scheme := "http"
	if e.TLS {
		scheme = "https"
	}
	return scheme + "://" + e.Addr()
}

// ParseURL reads QDRANT_URL. It accepts https://host:6333, https://host,
// host:6334, http://localhost:6333 and a bare host. The REST port 6333 (and
// a missing port) become the gRPC port 6334; any other port is kept. https
// means TLS; http and a bare host mean plaintext, except for Qdrant Cloud
// hosts (*.cloud.qdrant.io), which always use TLS. notes tell the user what
// was changed.
func ParseURL(raw string) (Endpoint, []string, error) {
	var notes []string
	s := strings.TrimSpace(raw)
	if s == "" {
		return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL is empty: set it to your Qdrant URL, e.g. https://xyz.cloud.qdrant.io:6333 or http://localhost:6333", retrieval.ErrConfig)
	}
	hasScheme := strings.Contains(s, "://")
	if !hasScheme {
		s = "bare://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL %q is not a URL: use https://host:6333 or host:6334", retrieval.ErrConfig, redactURL(raw))
	}
	var ep Endpoint
	switch strings.ToLower(u.Scheme) {
	case "https", "grpcs":
		ep.TLS = true
	case "http", "grpc", "bare":
	default:
		return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL scheme %q is not supported: use https:// or http://", retrieval.ErrConfig, u.Scheme)
	}
	ep.Host = u.Hostname()
	if ep.Host == "" {
		return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL %q has no host", retrieval.ErrConfig, redactURL(raw))
	}
	// a host with colons must be an IPv6 address, so
	// that "::::" is a configuration error, not an unreachable server.
	if strings.Contains(ep.Host, ":") && net.ParseIP(ep.Host) == nil {
		return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL %q has no valid host: use https://host:6333 or host:6334", retrieval.ErrConfig, redactURL(raw))
	}
	if u.User != nil {
		notes = append(notes, "user info in QDRANT_URL ignored: put the key in QDRANT_API_KEY")
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		notes = append(notes, fmt.Sprintf("path /%s in QDRANT_URL ignored: gRPC has no path", p))
	}
	if !hasScheme && !ep.TLS && strings.HasSuffix(strings.ToLower(ep.Host), ".cloud.qdrant.io") {
		ep.TLS = true
		notes = append(notes, "Qdrant Cloud host: using TLS")
	}
	switch port := u.Port(); port {
	case "":
		ep.Port = GRPCPort
		if hasScheme {
			notes = append(notes, fmt.Sprintf("no port in QDRANT_URL: using the gRPC port %d", GRPCPort))
		}
	case strconv.Itoa(RESTPort):
		ep.Port = GRPCPort
		notes = append(notes, fmt.Sprintf("REST port %d mapped to gRPC port %d (ragscope speaks gRPC)", RESTPort, GRPCPort))
	default:
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return Endpoint{}, nil, fmt.Errorf("%w: QDRANT_URL port %q is not a port number", retrieval.ErrConfig, port)
		}
		ep.Port = n
	}
	return ep, notes, nil
}

// redactURL hides the credentials of a URL for messages (urlredact.URL: user
// information and credential query parameters), even one that does not
// parse.
func redactURL(raw string) string { return urlredact.URL(raw) }
