package links

import "ragscope/retrieval/docusaurus"

// SiteConfig is what ragscope reads from docusaurus.config.{js,ts,…}; see
// package docusaurus.
type SiteConfig = docusaurus.SiteConfig

// DefaultSiteConfig is Docusaurus's defaults.
func DefaultSiteConfig() SiteConfig { return docusaurus.DefaultSiteConfig() }

// ParseConfig reads a Docusaurus config's source; see docusaurus.ParseConfig.
func ParseConfig(src string) SiteConfig { return docusaurus.ParseConfig(src) }
