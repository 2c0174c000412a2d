// @ts-check
// Fixture site (one page and one heading renamed) for ragscope's link audit tests.
// url: 'https://commented-out.example.com',

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Fixture Book',
  url: 'https://example.org',
  baseUrl: '/book/',
  trailingSlash: false,
  themeConfig: {
    navbar: { items: [{ href: 'https://github.com/x/y', label: 'GitHub' }] },
  },
  presets: [
    [
      'classic',
      {
        blog: { routeBasePath: '/', path: 'blog' },
        docs: {
          path: 'docs',
          routeBasePath: '/guide/',
          editUrl: 'https://github.com/x/y/tree/main/',
          sidebarPath: './sidebars.js',
        },
      },
    ],
  ],
};

module.exports = config;
