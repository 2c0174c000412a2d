// Fixture site for ragscope's real-build oracle (retrieval/docusaurus).
// trailingSlash undefined, a baseUrl, and a second docs plugin instance.
module.exports = {
  title: 'Oracle Book',
  url: 'https://oracle.example.org',
  baseUrl: '/book/',
  onBrokenLinks: 'ignore',
  onBrokenMarkdownLinks: 'ignore',
  onBrokenAnchors: 'ignore',
  presets: [
    [
      'classic',
      {
        docs: { routeBasePath: 'docs' },
        blog: false,
        pages: false,
        theme: {},
      },
    ],
  ],
  plugins: [
    [
      '@docusaurus/plugin-content-docs',
      { id: 'community', path: 'community', routeBasePath: 'community' },
    ],
  ],
};
