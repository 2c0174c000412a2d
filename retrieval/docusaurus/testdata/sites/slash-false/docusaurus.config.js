// Fixture site for ragscope's real-build oracle: trailingSlash false and
// docs in a folder and route other than "docs", from the docs plugin.
module.exports = {
  title: 'Slash False',
  url: 'https://false.example.org',
  baseUrl: '/site/',
  trailingSlash: false,
  onBrokenLinks: 'ignore',
  onBrokenMarkdownLinks: 'ignore',
  onBrokenAnchors: 'ignore',
  presets: [['classic', { docs: false, blog: false, pages: false, theme: {} }]],
  plugins: [['@docusaurus/plugin-content-docs', { path: 'guide', routeBasePath: 'learn' }]],
};
