package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"ragscope/config"
	"ragscope/links"
	"ragscope/retrieval"
	"ragscope/ui"
)

// LinkStatus returns the explorer's background link checker: citation URLs
// are checked against the local Docusaurus site (--site, or the demo's
// embedded site) once each, lazily, and cached. It returns nil when there
// is no site to check against, and a note saying why the explorer shows no
// link states.
//
// The demo's embedded site cannot be wrong in a way a user could fix, so
// it is read in the background while the explorer draws its first frame
// (the first check waits for it); a site from --site or a local index is
// read before the explorer starts, so a bad one is a note at start.
func LinkStatus(be *Backend) (func(context.Context, string) (ui.LinkStatus, error), string) {
	if be.Setup.Settings.SiteDir == "" && be.Kind == config.BackendDemo && be.Site != nil {
		cache := sync.OnceValues(func() (*links.StatusCache, error) {
			site, err := links.LoadSite(be.Site)
			if err != nil {
				return nil, fmt.Errorf("link states off: %w", err)
			}
			return links.NewStatusCache(LocalChecker(site, be.Pipeline.URLs)), nil
		})
		go cache() // read the site while the explorer starts; a check waits for it
		return checkWith(cache), ""
	}
	site, _, err := Site(be)
	if err != nil {
		return nil, "Link states off: " + Message(err)
	}
	if site == nil {
		return nil, ""
	}
	cache := links.NewStatusCache(LocalChecker(site, be.Pipeline.URLs))
	return checkWith(func() (*links.StatusCache, error) { return cache, nil }), ""
}

// checkWith is the explorer's link check on the cache that cache returns
// (waiting for it when it is still being built).
func checkWith(cache func() (*links.StatusCache, error)) func(context.Context, string) (ui.LinkStatus, error) {
	return func(ctx context.Context, url string) (ui.LinkStatus, error) {
		if err := ctx.Err(); err != nil {
			return ui.LinkStatus{}, err
		}
		c, err := cache()
		if err != nil {
			return ui.LinkStatus{}, err
		}
		return linkStatusOf(c.Check(ctx, url)), nil
	}
}

// Site loads the Docusaurus site the citations point into: --site, else
// the backend's own (the demo's embedded site). It is nil, with no error,
// when there is none. name describes it for reports.
func Site(be *Backend) (site *links.Site, name string, err error) {
	cfg := be.Setup.Settings
	switch {
	case cfg.SiteDir != "":
		site, err = links.LoadSiteDirBase(cfg.SiteDir, cfg.DocsBaseURL)
		name = cfg.SiteDir
	case be.Site != nil:
		site, err = links.LoadSite(be.Site)
		name = "site of the " + string(be.Kind) + " backend"
		if be.Kind == config.BackendDemo {
			name = "embedded demo site"
		}
	}
	return site, name, err
}

// LocalChecker checks citation URLs against site, taking the hosts the
// URL builder writes as the site's own.
func LocalChecker(site *links.Site, urls retrieval.URLBuilder) links.Checker {
	return links.NewLocalChecker(site, hostOf(urls.DocsBase), hostOf(urls.SiteURL))
}

func hostOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Host
}

// linkStatusOf turns a link check into what the explorer shows: the
// checker's state (the explorer shares its vocabulary), a better URL and
// a few words of detail; states the explorer does not tell apart are
// ui.LinkUnknown.
func linkStatusOf(r links.Result) ui.LinkStatus {
	st := ui.LinkStatus{State: r.Status, Detail: r.Cause}
	switch r.Status {
	case links.StatusOK:
	case links.StatusRedirected:
		st.Suggest = r.RedirectTo
	case links.StatusPageMissing:
		st.Suggest = r.Suggestion
		if st.Detail == "" {
			st.Detail = "no page at " + r.Page
		}
	case links.StatusAnchorMissing:
		st.Suggest = r.SuggestedURL()
		if st.Detail == "" {
			st.Detail = "the page has no heading with the id " + r.Anchor
		}
	default:
		st.State = ui.LinkUnknown
		st.Detail = strings.TrimSpace(string(r.Status) + " " + r.Error)
	}
	return st
}
