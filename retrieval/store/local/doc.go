// Package local is ragscope's embedded default backend: a Docusaurus docs
// folder (or the bundled demo textbook) is chunked, embedded offline and
// searched in an exact in-memory index, with no network and no keys.
//
// Chunking choices, so that results are predictable:
//
//   - A page is split at its ## and ### headings (never inside a fenced code
//     block); # is the page title, #### and deeper stay inside their section.
//     The text before the first ## heading is the intro chunk, with an empty
//     Section (its citation is the page URL without an anchor).
//   - Every chunk's text starts with its heading line ("## Section", with an
//     explicit {#id} removed; "# Title" for the intro), and every piece of a
//     long section repeats it: the heading is often the best match for a
//     question and is cheap to keep. Sections with no text besides their
//     heading give no chunk; short ones are kept as they are.
//   - Module is the folder at the first level under docs that varies
//     ("module-1-ros2" in docs/module-1-ros2/; "module-1" in
//     docs/modules/module-1/), and empty for pages above the module
//     folders: a missing field is shown as missing, not invented, and a
//     module filter does not match them. Chapter is the category folder
//     under the module, else the file name without extension and number
//     prefix ("what-is-ros2"); for an index or README page, its folder's
//     name. _category_ labels ride along in Extra; FacetOptions override
//     the level or map folders to modules; front matter wins (facets.go).
//   - HeadingID holds the heading's explicit id, or the id Docusaurus
//     computes when it carries a duplicate suffix ("example-1"), which a URL
//     builder cannot know without the page's earlier headings. All other
//     anchors are left to the pipeline's URL builder, as is the chunk URL,
//     so the configured slug style applies.
//
// The embedder sees a chunk's parent headings (page title, then a ###
// section's ## heading) before its text; see embedText.
//
// Searches rank by BM25 by default (hybrid.go): BM25 over every chunk,
// from postings built with the index and saved in its file (lexindex.go);
// WithMode gives a view of the index that ranks by the hybrid (BM25
// blended with the embedder's cosine and a title match) or the embedder
// alone, sharing its data (the explorer takes one per question, so a change of mode never
// touches a search in flight).
package local
