// Package demo embeds ragscope's demo textbook, an original sample course
// "Physical AI & Humanoid Robotics" in Docusaurus layout, so ragscope is
// useful with no index, no keys and no network.
package demo

import (
	"embed"
	"io/fs"
)

// The site folder holds docusaurus.config.js and docs/**. "all:" keeps
// Docusaurus's _category_.json files, which the chunker then skips as
// Docusaurus does.
//
//go:embed all:site
var site embed.FS

// Where the demo site would be published, from site/docusaurus.config.js
// (url + baseUrl + the docs routeBasePath).
const (
	// SiteURL is the demo site's origin.
	SiteURL = "https://physical-ai.example.org"
	// DocsBaseURL is the URL of the demo's docs route.
	DocsBaseURL = "https://physical-ai.example.org/textbook/docs/"
	// DocsDir is the docs folder inside Site().
	DocsDir = "docs"
	// Name names the demo index in stats and headers.
	Name = "physical-ai-textbook (demo)"
)

// Site returns the demo site, rooted at the folder that holds
// docusaurus.config.js and docs/.
func Site() fs.FS {
	sub, err := fs.Sub(site, "site")
	if err != nil {
		// fs.Sub fails only for an invalid path; "site" is valid.
		panic("demo: " + err.Error())
	}
	return sub
}
