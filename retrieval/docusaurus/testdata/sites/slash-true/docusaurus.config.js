// Fixture site for ragscope's real-build oracle: trailingSlash true and
// versioned docs (versions.json with one released version).
module.exports = {
  title: 'Slash True',
  url: 'https://true.example.org',
  baseUrl: '/',
  trailingSlash: true,
  onBrokenLinks: 'ignore',
  onBrokenMarkdownLinks: 'ignore',
  onBrokenAnchors: 'ignore',
  presets: [['classic', { docs: {}, blog: false, pages: false, theme: {} }]],
};
