// @ts-check
// Docusaurus configuration for the "Physical AI & Humanoid Robotics" sample course.
// This is original demo content bundled with ragscope.

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Physical AI & Humanoid Robotics',
  tagline: 'From ROS 2 nodes to voice-driven humanoids',
  favicon: 'img/favicon.ico',

  url: 'https://physical-ai.example.org',
  baseUrl: '/textbook/',
  trailingSlash: false,

  organizationName: 'physical-ai-course',
  projectName: 'textbook',

  onBrokenLinks: 'throw',
  onBrokenMarkdownLinks: 'warn',

  i18n: {
    defaultLocale: 'en',
    locales: ['en'],
  },

  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          routeBasePath: 'docs',
          sidebarPath: './sidebars.js',
          showLastUpdateTime: false,
        },
        blog: false,
        theme: {
          customCss: './src/css/custom.css',
        },
      }),
    ],
  ],

  themeConfig:
    /** @type {import('@docusaurus/preset-classic').ThemeConfig} */
    ({
      navbar: {
        title: 'Physical AI Textbook',
        items: [
          {
            type: 'docSidebar',
            sidebarId: 'textbookSidebar',
            position: 'left',
            label: 'Textbook',
          },
        ],
      },
      footer: {
        style: 'dark',
        copyright: 'Sample course content, CC BY 4.0.',
      },
      prism: {
        additionalLanguages: ['bash', 'python', 'yaml', 'csharp'],
      },
    }),
};

module.exports = config;
