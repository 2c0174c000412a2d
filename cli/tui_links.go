package cli

import (
	"context"
	"strings"

	"ragscope/links"
	"ragscope/ui"
)

// linkStatus returns the TUI's background link checker: citation URLs are
// checked against the local Docusaurus site (--site, or the demo's embedded
// site) once each, lazily, and cached. It returns nil when there is no
// site to check against, and a note saying why the TUI shows no link
// states.
func (a *App) linkStatus(be *Backend) (func(context.Context, string) (ui.LinkStatus, error), string) {
	var (
		site *links.Site
		err  error
	)
	switch {
	case a.Cfg.SiteDir != "":
		site, err = links.LoadSiteDir(a.Cfg.SiteDir)
	case be.Site != nil:
		site, err = links.LoadSite(be.Site)
	default:
		return nil, ""
	}
	if err != nil {
		return nil, "Link states off: " + Message(err)
	}
	urls := be.Pipeline.URLs
	cache := links.NewStatusCache(links.NewLocalChecker(site, hostOf(urls.DocsBase), hostOf(urls.SiteURL)))
	return func(ctx context.Context, url string) (ui.LinkStatus, error) {
		if err := ctx.Err(); err != nil {
			return ui.LinkStatus{}, err
		}
		return linkStatusOf(cache.Check(ctx, url)), nil
	}, ""
}

// linkStatusOf turns a link check into what the TUI shows.
func linkStatusOf(r links.Result) ui.LinkStatus {
	st := ui.LinkStatus{Detail: r.Cause}
	switch r.Status {
	case links.StatusOK:
		st.State = ui.LinkOK
	case links.StatusRedirected:
		st.State, st.Suggest = ui.LinkRedirected, r.RedirectTo
	case links.StatusPageMissing:
		st.State, st.Suggest = ui.LinkPageMissing, r.Suggestion
		if st.Detail == "" {
			st.Detail = "no page at " + r.Page
		}
	case links.StatusAnchorMissing:
		st.State = ui.LinkAnchorMissing
		if r.Suggestion != "" {
			page := r.URL
			if i := strings.IndexByte(page, '#'); i >= 0 {
				page = page[:i]
			}
			st.Suggest = page + "#" + r.Suggestion
		}
		if st.Detail == "" {
			st.Detail = "the page has no heading with the id " + r.Anchor
		}
	default:
		st.State = ui.LinkUnknown
		st.Detail = strings.TrimSpace(string(r.Status) + " " + r.Error)
	}
	return st
}
