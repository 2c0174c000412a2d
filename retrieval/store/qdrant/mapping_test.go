package qdrant

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/store/qdrant/qdranttest"
)

func TestDecodeBothSchemas(t *testing.T) {
	want := qdranttest.Textbook()[12]
	for name, payload := range map[string]map[string]*qc.Value{
		"A": qdranttest.PayloadA(want),
		"B": qdranttest.PayloadB(want),
	} {
		got := DefaultMapping().WithDefaults().Decode(want.ID, payload)
		if got.Text != want.Text || got.URL != want.URL || got.Title != want.Title || got.Section != want.Section ||
			got.DocPath != want.DocPath || got.Module != want.Module || got.Chapter != want.Chapter ||
			got.ContentHash != want.ContentHash || got.ContentType != want.ContentType ||
			!slices.Equal(got.Tags, want.Tags) || *got.ChunkIndex != *want.ChunkIndex {
			t.Errorf("schema %s:\n got %+v\nwant %+v", name, got, want)
		}
		if name == "B" {
			if !slices.Equal(got.Breadcrumb, want.Breadcrumb) || got.TotalChunks != nil {
				t.Errorf("schema B breadcrumb %v total %v", got.Breadcrumb, got.TotalChunks)
			}
			if got.Extra["metadata.ingested_by"] != "langchain-qdrant" || len(got.Extra) != 1 {
				t.Errorf("schema B extra = %v, want only metadata.ingested_by", got.Extra)
			}
		} else if len(got.Extra) != 0 {
			t.Errorf("schema A extra = %v, want none", got.Extra)
		}
	}
}

func TestDetectMappingBothSchemas(t *testing.T) {
	chunks := qdranttest.Textbook()[:20]
	var a, b []map[string]*qc.Value
	for _, c := range chunks {
		a = append(a, qdranttest.PayloadA(c))
		b = append(b, qdranttest.PayloadB(c))
	}
	da, db := DetectMapping(a), DetectMapping(b)
	wantA := map[string]string{
		FieldText: "text", FieldURL: "url", FieldTitle: "title", FieldSection: "section_title", FieldDocPath: "doc_path",
		FieldModule: "module", FieldChapter: "chapter", FieldChunkIndex: "chunk_index", FieldTotalChunks: "total_chunks",
		FieldContentHash: "content_hash", FieldTags: "tags", FieldContentType: "content_type", FieldPageSlug: "", FieldHeadingID: "",
	}
	wantB := map[string]string{
		FieldText: "content", FieldURL: "source_url", FieldTitle: "page_title", FieldSection: "headings", FieldDocPath: "metadata.source_file",
		FieldModule: "metadata.module_name", FieldChapter: "metadata.chapter_title", FieldChunkIndex: "metadata.position", FieldTotalChunks: "",
		FieldContentHash: "metadata.content_hash", FieldTags: "metadata.tags", FieldContentType: "metadata.content_type", FieldPageSlug: "", FieldHeadingID: "",
	}
	for f, w := range wantA {
		if da.Fields[f] != w {
			t.Errorf("schema A: %s fed by %q, want %q", f, da.Fields[f], w)
		}
	}
	for f, w := range wantB {
		if db.Fields[f] != w {
			t.Errorf("schema B: %s fed by %q, want %q", f, db.Fields[f], w)
		}
	}
	if da.Samples != 20 || da.Found[FieldText] != 20 || !slices.Contains(db.PayloadKeys, "metadata.module_name") {
		t.Errorf("detection counts: %+v / keys %v", da.Found, db.PayloadKeys)
	}
	if miss := db.Missing(); !slices.Equal(miss, []string{FieldTotalChunks, FieldPageSlug, FieldHeadingID}) {
		t.Errorf("schema B missing = %v", miss)
	}
}

func TestDecodeUnexpectedTypesShownAsFound(t *testing.T) {
	p := qc.NewValueMap(map[string]any{
		"page_content":   42,                              // text as a number
		"url":            []any{"https://a", "https://b"}, // url as a list
		"title":          map[string]any{"en": "Hello"},   // title as an object
		"section":        "",                              // empty: missing
		"heading":        "Real heading",                  // next candidate wins
		"chunk_id":       "chunk-7",                       // not numeric: not an index
		"position":       3.5,                             // not whole
		"chunk_sequence": "12",                            // numeric string
		"tags":           "single",                        // one tag as a string
		"total_chunks":   nil,                             // null: missing
		"weird":          true,
	})
	c := DefaultMapping().Decode("7", p)
	if c.Text != "42" || c.URL != `["https://a", "https://b"]` || c.Title != `{"en": "Hello"}` || c.Section != "Real heading" {
		t.Errorf("decoded %+v", c)
	}
	if c.ChunkIndex == nil || *c.ChunkIndex != 12 || c.TotalChunks != nil || !slices.Equal(c.Tags, []string{"single"}) {
		t.Errorf("index %v total %v tags %v", c.ChunkIndex, c.TotalChunks, c.Tags)
	}
	for _, k := range []string{"chunk_id", "position", "weird", "section"} {
		if _, ok := c.Extra[k]; !ok {
			t.Errorf("unclaimed %q missing from Extra %v", k, c.Extra)
		}
	}
	if c.Extra["chunk_id"] != "chunk-7" || c.Extra["weird"] != "true" {
		t.Errorf("extra = %v", c.Extra)
	}
}

func TestMappingOverride(t *testing.T) {
	m, err := ParseMapping(map[string][]string{"text": {"body", "text"}, "url": {"meta.link"}})
	if err != nil {
		t.Fatal(err)
	}
	m = m.WithDefaults()
	p := qc.NewValueMap(map[string]any{"body": "B", "text": "T", "meta": map[string]any{"link": "https://x"}, "url": "https://y"})
	c := m.Decode("1", p)
	if c.Text != "B" || c.URL != "https://x" || c.Title != "" {
		t.Errorf("override decode = %+v", c)
	}
	if c.Extra["text"] != "T" || c.Extra["url"] != "https://y" {
		t.Errorf("extra = %v", c.Extra)
	}
	if !slices.Equal(m.Candidates(FieldTitle), DefaultMapping().Title) {
		t.Error("unset fields must keep the defaults")
	}
	if _, err := ParseMapping(map[string][]string{"txet": {"x"}}); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "txet") {
		t.Errorf("unknown field: %v", err)
	}
}

func TestRenderDeepAndLong(t *testing.T) {
	v := qc.NewValueString("x")
	for i := 0; i < 50; i++ {
		v = qc.NewValueFromList(v)
	}
	if s := render(v, 0); !strings.Contains(s, "…") || len(s) > 200 {
		t.Errorf("deep render = %q", s)
	}
	long := qc.NewValueString(strings.Repeat("é", 5000))
	if s := render(qc.NewValueFromList(long), 0); len(s) > maxRender+10 || !strings.HasSuffix(s, "…") {
		t.Errorf("long render has %d bytes", len(s))
	}
}

// FuzzDecode feeds arbitrary JSON payloads (as Qdrant values) to the
// decoder and detector: they must never panic.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"text":"a","url":"u","headings":["h1","h2"],"chunk_index":3}`,
		`{"content":1,"metadata":{"position":"7","source_url":["x"],"tags":[1,null,{"a":[]}]}}`,
		`{"section":[],"headings":[null],"tags":{"k":"v"},"chunk_id":1e300,"total_chunks":-5}`,
		`{"a.b":{"c":{"d":{"e":[[[[["deep"]]]]]}}},"metadata":null,"text":""}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var m map[string]any
		if json.Unmarshal([]byte(raw), &m) != nil {
			return
		}
		p, err := qc.TryValueMap(m)
		if err != nil {
			return
		}
		// Nil entries are legal on the wire too.
		p["nil"] = nil
		p["empty"] = &qc.Value{}
		mapping := DefaultMapping()
		c := mapping.Decode("id", p)
		_ = mapping.Detect([]map[string]*qc.Value{p, nil})
		if c.ChunkIndex != nil && c.Section == "\x00impossible" {
			t.Fatal("unreachable")
		}
	})
}

// A collection written as content, url, title, chunk_index, document_id,
// total_chunks (one published textbook's schema) has its doc path.
func TestDecodeDocumentIDAsDocPath(t *testing.T) {
	m := DefaultMapping().WithDefaults()
	for key, payload := range map[string]map[string]*qc.Value{
		"document_id": qc.NewValueMap(map[string]any{"content": "ROS 2 uses DDS.", "url": "https://b.io/docs/intro", "title": "Intro",
			"chunk_index": 3, "document_id": "docs/intro.md", "total_chunks": 9}),
		"doc_id":          qc.NewValueMap(map[string]any{"text": "t", "doc_id": "docs/intro.md"}),
		"metadata.source": qc.NewValueMap(map[string]any{"page_content": "t", "metadata": map[string]any{"source": "docs/intro.md"}}),
	} {
		got := m.Decode("p1", payload)
		if got.DocPath != "docs/intro.md" {
			t.Errorf("%s: doc path %q, want docs/intro.md", key, got.DocPath)
		}
		if key == "document_id" && (got.Text != "ROS 2 uses DDS." || *got.ChunkIndex != 3 || *got.TotalChunks != 9) {
			t.Errorf("%s: %+v", key, got)
		}
	}
}
