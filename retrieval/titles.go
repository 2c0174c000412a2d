package retrieval

import "context"

// PageTitler is implemented by stores that know their pages' titles (the
// local index). A selected-text hit is titled with it: its source doc path
// alone gives only a slug ("what-is-ros2").
type PageTitler interface {
	// PageTitle returns the title of the page at docPath, a path as the
	// store's chunks have it or one with the same route (a number prefix
	// left out: "docs/m/what-is-ros2.md" for "docs/m/01-what-is-ros2.md");
	// false when the store has no such page.
	PageTitle(ctx context.Context, docPath string) (string, bool)
}

// selectionTitle is the title of a selected-text hit from docPath: the
// store's title of that page when it knows one, otherwise the page's slug.
func (p *Pipeline) selectionTitle(ctx context.Context, docPath string) string {
	if t, ok := p.Store.(PageTitler); ok && docPath != "" {
		if title, found := t.PageTitle(ctx, docPath); found && title != "" {
			return title
		}
	}
	return titleFromDocPath(docPath)
}
