package common

import (
	"ragscope/links"
)

// Link states reported by a LinkStatus function: the link checker's own
// (links.Status), and LinkUnknown for any state the explorer does not
// show apart (a check error, an external or missing URL).
const (
	LinkOK            = links.StatusOK
	LinkPageMissing   = links.StatusPageMissing
	LinkAnchorMissing = links.StatusAnchorMissing
	LinkRedirected    = links.StatusRedirected
	LinkUnknown       = links.Status("unknown")
)

// LinkStatus is what a link checker knows about a citation URL.
type LinkStatus struct {
	// State is one of LinkOK, LinkPageMissing, LinkAnchorMissing,
	// LinkRedirected or LinkUnknown.
	State links.Status
	// Detail explains the state in a few words.
	Detail string
	// Suggest is a better URL, when the checker found one.
	Suggest string
}
